import Crypto

/// Who may see which images: prefixes of image names mapped to public or private, a default, and the keys that sign
/// access tokens and tile URLs (several at once, so a key can be rotated without cutting anyone off).
///
/// Read from the `--access` file (``init(file:environment:)``, `AccessPolicy+File.swift`). Without a policy the
/// server serves everything to everyone, as it always has.
public struct AccessPolicy: Sendable {
    /// Whether an image is served to anyone (`public`) or only with a token or signed URL (`private`).
    public enum Visibility: String, Sendable, Codable {
        case `public`
        case `private`
    }

    /// One rule: names starting with `prefix` have `visibility` (the longest matching prefix wins).
    public struct Rule: Sendable, Equatable {
        public let prefix: String
        public let visibility: Visibility
    }

    /// The rules, longest prefix first.
    public let rules: [Rule]
    /// The visibility of names no rule matches.
    public let defaultVisibility: Visibility
    /// Every key that verifies tokens and signatures, by id.
    let keys: [String: SigningKey]
    /// The key that signs: tokens `tiler token` mints and the tile URLs the server hands out.
    let signingKey: SigningKey
    /// Every key, the signing key first: the order signed tile URLs are checked in.
    let tileKeys: [SigningKey]
    /// Signed tile URLs expire at a multiple of this many seconds, at least one window and at most two after they are
    /// handed out: every viewer of an image in the same window gets the same URLs (one copy in shared caches).
    public let windowSeconds: Int

    init(rules: [Rule], defaultVisibility: Visibility, keys: [SigningKey], signingKeyID: String?, windowSeconds: Int) throws(AccessPolicyError) {
        guard let first = keys.first else { throw AccessPolicyError("the policy names no signing key") }
        var byID: [String: SigningKey] = [:]
        for key in keys {
            guard byID.updateValue(key, forKey: key.id) == nil else { throw AccessPolicyError("key id \(key.id) is given twice") }
        }
        guard (60...86_400).contains(windowSeconds) else { throw AccessPolicyError("window must be 60…86400 seconds (got \(windowSeconds))") }
        self.rules = rules.sorted { $0.prefix.utf8.count > $1.prefix.utf8.count }
        self.defaultVisibility = defaultVisibility
        self.keys = byID
        var signing = first
        if let signingKeyID {
            guard let key = byID[signingKeyID] else { throw AccessPolicyError("sign names key \(signingKeyID), which the policy does not give") }
            signing = key
        }
        self.signingKey = signing
        self.tileKeys = [signing] + keys.filter { $0.id != signing.id }
        self.windowSeconds = windowSeconds
    }

    /// Whether no image is private (then nothing is ever checked).
    public var isAllPublic: Bool {
        defaultVisibility == .public && rules.allSatisfy { $0.visibility == .public }
    }

    /// The visibility of image `name` (a catalog name, without `@version`).
    ///
    /// - Complexity: O(rules × prefix length); names are compared as Unicode strings, as the catalog compares them.
    public func visibility(of name: some StringProtocol) -> Visibility {
        for rule in rules where name.hasPrefix(rule.prefix) {
            return rule.visibility
        }
        return defaultVisibility
    }

    /// The ids of the keys, in no particular order (never the keys).
    public var keyIDs: [String] { Array(keys.keys) }

    /// The id of the key that signs.
    public var signingKeyID: String { signingKey.id }
}

/// A signing key: an id (in tokens and signed URLs) and secret bytes, never printed.
///
/// `@unchecked Sendable`: swift-crypto 3's `SymmetricKey` is not marked `Sendable`, but it is an immutable value whose
/// storage is never written after creation; it is only read here, by HMAC.
struct SigningKey: @unchecked Sendable, CustomStringConvertible {
    /// The id, 1–32 of `A–Z a–z 0–9 _ -`.
    let id: String
    /// The secret.
    let key: SymmetricKey

    /// The fewest secret bytes a key may have.
    static let minimumBytes = 32

    var description: String { "SigningKey(\(id), redacted)" }

    /// Whether `id` may name a key: 1–32 characters of `A–Z a–z 0–9 _ -`.
    static func isValidID(_ id: some StringProtocol) -> Bool {
        (1...32).contains(id.utf8.count)
            && id.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }
}

/// Why a policy file cannot be used: one line naming what is wrong (never a key's bytes).
public struct AccessPolicyError: Error, Sendable, CustomStringConvertible {
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}
