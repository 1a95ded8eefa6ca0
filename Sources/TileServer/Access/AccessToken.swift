import Crypto
import FoundationEssentials
import HTTPCore
import JSONText
import TileGeometry

/// A signed grant: the images it names (a name, or a prefix ending in `*`), an expiry, a scope and the id of the key
/// that signed it. Minted by `tiler token` or by the embedding site's back end; presented as `Authorization: Bearer`
/// or `?token=`.
///
/// The text form (documented in docs/private-images.md, mintable without Tiler):
/// `tiler1.KID.CLAIMS.SIG`, where `CLAIMS` is the base64url (no padding) of the UTF-8 JSON object
/// `{"img": "slides/2024/*", "exp": 1764201600, "scope": "read"}` (`exp` in Unix seconds) and `SIG` the base64url of
/// HMAC-SHA256(key `KID`, `tiler1.KID.CLAIMS`).
public struct AccessToken: Sendable, Equatable {
    /// What a token lets its bearer do.
    public enum Scope: String, Sendable, Codable, CaseIterable {
        case read
        case write
    }

    /// The images granted: an image name, or a prefix followed by `*` (`slides/2024/*`; `*` alone: every image).
    public let images: String
    /// When the token stops working, in Unix seconds.
    public let expires: Int
    /// What it grants.
    public let scope: Scope
    /// The id of the key that signs it.
    public let keyID: String

    /// The format's tag, the first part of every token.
    static let tag = "tiler1"

    public init(images: String, expires: Int, scope: Scope, keyID: String) {
        self.images = images
        self.expires = expires
        self.scope = scope
        self.keyID = keyID
    }

    /// Whether `pattern` can be a token's `images`: not empty, `*` only as its last character.
    public static func isValidPattern(_ pattern: String) -> Bool {
        guard !pattern.isEmpty, let star = pattern.firstIndex(of: "*") else { return !pattern.isEmpty }
        return pattern.index(after: star) == pattern.endIndex
    }

    /// Whether the token names image `name` (a catalog name without `@version`): equal to the pattern, or starting
    /// with what precedes its final `*`. Compared as Unicode strings, as the catalog compares names.
    public func grants(_ name: some StringProtocol) -> Bool {
        if images.hasSuffix("*") {
            return name.hasPrefix(images.dropLast())
        }
        return name == images
    }

    /// The token's text, signed with `key` (its id must be ``keyID``).
    func text(signedWith key: SigningKey) -> String {
        precondition(key.id == keyID, "a token is signed with the key it names")
        // One fixed member order, so that the same grant always makes the same token.
        let claims = JSONWriter.text { writer in
            writer.openObject()
            writer.member("img", images)
            writer.member("exp", expires)
            writer.member("scope", scope.rawValue)
            writer.closeObject()
        }
        let signed = "\(Self.tag).\(keyID).\(Base64URL.encode(Array(claims.utf8)))"
        let mac = HMAC<SHA256>.authenticationCode(for: Array(signed.utf8), using: key.key)
        return signed + "." + Base64URL.encode(Array(mac))
    }
}

extension AccessPolicy {
    /// A token for `images` (a name or `prefix*`) expiring at `expires` (Unix seconds) with `scope`, signed with the
    /// signing key, or with key `keyID` when given.
    ///
    /// - Throws: ``AccessPolicyError`` for an unknown key id or a malformed pattern.
    public func mint(images: String, expires: Int, scope: AccessToken.Scope, keyID: String? = nil) throws(AccessPolicyError) -> String {
        guard AccessToken.isValidPattern(images) else {
            throw AccessPolicyError("images must be a name or a prefix ending in * (got \(images))")
        }
        let key: SigningKey
        if let keyID {
            guard let found = keys[keyID] else { throw AccessPolicyError("the policy has no key \(keyID)") }
            key = found
        } else {
            key = signingKey
        }
        return AccessToken(images: images, expires: expires, scope: scope, keyID: key.id).text(signedWith: key)
    }

    /// The token `text` says, checked: its form, its key, its signature (compared in constant time) and its expiry
    /// against `now` (Unix seconds).
    ///
    /// - Throws: ``AccessRefusal`` malformed or with a claim given twice (400), unknown key or bad signature (401), expired (401).
    /// - Complexity: O(n) in the token's length: one HMAC-SHA256 and one small JSON decoding.
    func verify(token text: Substring, now: Int) throws(AccessRefusal) -> AccessToken {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == AccessToken.tag, text.utf8.count <= 4096,
            let signature = Base64URL.decode(parts[3]), let claimsBytes = Base64URL.decode(parts[2])
        else { throw .malformed }
        guard let key = keys[String(parts[1])] else { throw .unknownKey }
        let signed = text.utf8.prefix(text.utf8.count - parts[3].utf8.count - 1)
        guard HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Array(signed), using: key.key) else {
            throw .badSignature
        }
        guard !ClaimKeys.repeatsAName(claimsBytes) else { throw .repeatedClaim }
        guard let claims = try? JSONDecoder().decode(TokenClaims.self, from: Data(claimsBytes)), AccessToken.isValidPattern(claims.img) else {
            throw .malformed
        }
        guard let scope = AccessToken.Scope(rawValue: claims.scope) else { throw .malformed }
        guard claims.exp > now else { throw .expired }
        return AccessToken(images: claims.img, expires: claims.exp, scope: scope, keyID: key.id)
    }
}

/// The JSON inside a token.
private struct TokenClaims: Decodable {
    let img: String
    let exp: Int
    let scope: String
}
