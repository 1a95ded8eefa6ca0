import Crypto

extension AccessPolicy {
    /// The query of the signed tile URLs of version `version` of image `name` handed out at `now` (Unix seconds):
    /// `exp=EXPIRES&kid=KID&sig=SIG`, where `EXPIRES` is the end of the window after the current one (so every viewer
    /// of the image in the same window gets the same URLs, valid for one to two windows) and `SIG` the base64url of
    /// the first 16 bytes of HMAC-SHA256(the signing key, `tile` LF `NAME` LF `VERSION` LF `EXPIRES`) (22 characters:
    /// HMAC-SHA-256-128, as RFC 4868 truncates it; every visible-rect answer carries it once per tile URL).
    ///
    /// - Complexity: One HMAC-SHA256 over the name.
    func tileQuery(name: String, version: String, now: Int) -> String {
        let expires = (now / windowSeconds + 2) * windowSeconds
        let mac = HMAC<SHA256>.authenticationCode(for: Self.tileMessage(name: name, version: version, expires: expires), using: signingKey.key)
        return "exp=\(expires)&kid=\(signingKey.id)&sig=\(Base64URL.encode(Array(mac.prefix(Self.tileSignatureBytes))))"
    }

    /// Checks a tile request's signature (`exp`, `kid`, `sig` in `query`) for version `version` of image `name` at
    /// `now`, and returns its expiry (Unix seconds).
    ///
    /// - Throws: ``AccessRefusal`` missing (no `sig`), malformed, unknown key, bad signature (also a signature for
    ///   another image or version) or expired.
    /// - Complexity: One HMAC-SHA256, compared in constant time.
    func verifyTile(query: QueryString, name: some StringProtocol, version: some StringProtocol, now: Int) throws(AccessRefusal) -> Int {
        guard let sigText = query.value(named: "sig") else { throw .missing }
        // `exp` in its one spelling (digits, no sign, no leading zero): one signature, one URL, one copy in caches.
        guard let expText = query.value(named: "exp"), let kid = query.value(named: "kid"), (1...12).contains(expText.utf8.count),
            expText.utf8.first != UInt8(ascii: "0"), expText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let expires = Int(expText), let signature = Base64URL.decode(sigText),
            signature.count == Self.tileSignatureBytes
        else { throw .malformed }
        guard let key = keys[String(kid)] else { throw .unknownKey }
        let mac = HMAC<SHA256>.authenticationCode(for: Self.tileMessage(name: name, version: version, expires: expires), using: key.key)
        guard AccessMemo.sameBytes(Array(mac.prefix(Self.tileSignatureBytes))[...], signature[...]) else { throw .badSignature }
        guard expires > now else { throw .expired }
        return expires
    }

    /// How many whole seconds a cache may keep an answer under a signature that expires at `expires` (Unix seconds),
    /// answered when the clock's whole seconds are `now`: one less than the difference, since the true time is up to a
    /// second past `now`, so that no cache keeps it past the expiry.
    static func maxAge(expires: Int, now: Int) -> Int {
        max(0, expires - now - 1)
    }

    /// The bytes of HMAC-SHA256 a tile signature keeps: 128 bits, as RFC 4868's HMAC-SHA-256-128.
    static let tileSignatureBytes = 16

    private static func tileMessage(name: some StringProtocol, version: some StringProtocol, expires: Int) -> [UInt8] {
        Array("tile\n\(name)\n\(version)\n\(expires)".utf8)
    }
}
