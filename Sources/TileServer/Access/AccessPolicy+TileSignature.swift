import Crypto
import HTTPCore

extension AccessPolicy {
    /// The query of the signed tile URLs of version `version` of image `name` handed out at `now` (Unix seconds):
    /// `sig=SIG`, the base64url of the first 16 bytes of HMAC-SHA256(the signing key, `tile` LF `NAME` LF `VERSION` LF
    /// `EXPIRES`) (22 characters: HMAC-SHA-256-128, as RFC 4868 truncates it). `EXPIRES` is the end of the window after
    /// the current one, so every viewer of the image in the same window gets the same URLs, valid for one to two
    /// windows. Neither the expiry nor the key id is in the URL: the server finds them by trying the few expiries that
    /// can be current (``verifyTile(query:name:version:now:)``), which keeps the query 27 bytes where spelling them
    /// out took 49 — and a visible-rect answer carries it once per tile URL.
    ///
    /// - Complexity: One HMAC-SHA256 over the name.
    func tileQuery(name: String, version: String, now: Int) -> String {
        tileQuery(name: name, version: version, expires: tileExpiry(now: now))
    }

    /// The query of the tile URLs of version `version` of image `name` signed to expire at `expires` (Unix seconds)
    /// with the signing key.
    func tileQuery(name: String, version: String, expires: Int) -> String {
        "sig=" + Base64URL.encode(tileSignature(key: signingKey, name: name, version: version, expires: expires))
    }

    /// The expiry (Unix seconds) of the signed tile URLs handed out at `now`: the end of the window after the current
    /// one.
    func tileExpiry(now: Int) -> Int {
        (now / windowSeconds + 2) * windowSeconds
    }

    /// Checks a tile request's signature (`sig` in `query`) for version `version` of image `name` at `now`, and
    /// returns its expiry (Unix seconds).
    ///
    /// The expiries that can be valid at `now` are the ends of the next three windows: the URLs handed out in this
    /// window or the last one, and those a replica whose clock is up to a window ahead handed out. Each is tried with
    /// every key, the signing key first, so an expired signature or one made with a key no longer listed reads as a
    /// wrong one.
    ///
    /// - Throws: ``AccessRefusal`` missing (no `sig`), malformed (not 16 bytes of base64url) or bad signature (also
    ///   a signature for another image or version, an expired one, or one by an unknown key).
    /// - Complexity: One HMAC-SHA256 for a URL of this window's, at most three per key; each compared in constant
    ///   time.
    func verifyTile(query: QueryString, name: some StringProtocol, version: some StringProtocol, now: Int) throws(AccessRefusal) -> Int {
        guard let sigText = query.value(named: "sig") else { throw .missing }
        guard let signature = Base64URL.decode(sigText), signature.count == Self.tileSignatureBytes else { throw .malformed }
        let current = now / windowSeconds
        for ahead in [2, 1, 3] {
            let expires = (current + ahead) * windowSeconds
            for key in tileKeys {
                let expected = tileSignature(key: key, name: name, version: version, expires: expires)
                if AccessMemo.sameBytes(expected[...], signature[...]) { return expires }
            }
        }
        throw .badSignature
    }

    /// How many whole seconds a cache may keep an answer under a signature that expires at `expires` (Unix seconds),
    /// answered when the clock's whole seconds are `now`: one less than the difference, since the true time is up to a
    /// second past `now`, so that no cache keeps it past the expiry.
    static func maxAge(expires: Int, now: Int) -> Int {
        max(0, expires - now - 1)
    }

    /// The `Cache-Control` line of an answer under a signature that expires at `expires`, answered at `now` (Unix
    /// seconds): shared caches may keep it until then, never after (``maxAge(expires:now:)``). The one place it is
    /// written, for tiles and IIIF images alike.
    static func signedCacheControlLine(expires: Int, now: Int) -> String {
        "Cache-Control: public, max-age=\(maxAge(expires: expires, now: now))\r\n"
    }

    /// The bytes of HMAC-SHA256 a tile signature keeps: 128 bits, as RFC 4868's HMAC-SHA-256-128.
    static let tileSignatureBytes = 16

    private func tileSignature(key: SigningKey, name: some StringProtocol, version: some StringProtocol, expires: Int) -> [UInt8] {
        let message = Array("tile\n\(name)\n\(version)\n\(expires)".utf8)
        return Array(HMAC<SHA256>.authenticationCode(for: message, using: key.key).prefix(Self.tileSignatureBytes))
    }
}
