import Glibc
import NIOCore

/// What one connection has already verified: signed tile URLs and tokens (valid ones only; each is used until its
/// expiry, checked on every use), the token grants it made (name, token and catalog version), the signed query last
/// handed out per image, and the last `Cache-Control` lines of signed tiles. A viewer sends dozens of requests on each
/// kept-alive connection with the same signature or token: after the first, checking it is a byte comparison instead
/// of an HMAC-SHA256, query parsing, JSON decoding and catalog lookups — measured, the difference between a private
/// tile costing about a fifth of the rate and a few percent (`bench/private-vs-public.sh`). Not thread-safe: the
/// connection's event loop only.
///
/// Secrets (tokens, signed queries) are compared in constant time: a connection from a shared cache or proxy carries
/// many clients' requests, so one client must not learn another's token from how long a wrong guess took.
final class AccessMemo {
    /// Entries kept of each kind (replaced round-robin): a connection rarely shows more than a few images at once.
    static let capacity = 4

    private var signed: [(name: String, query: String, catalogVersion: Int, expires: Int)] = []
    private var nextSigned = 0
    private var tokens: [(text: String, token: AccessToken)] = []
    private var nextToken = 0
    private var grants: [(name: String, credential: String, catalogVersion: Int, token: AccessToken)] = []
    private var nextGrant = 0
    private var tileQueries: [(image: Int, window: Int, signed: SignedTiles)] = []
    private var nextTileQuery = 0
    private var cacheControl: (now: Int, expires: Int, hit: ByteBuffer, miss: ByteBuffer)?

    /// The expiry of a signed tile URL of `name` with query `query` verified before while the catalog was at version
    /// `catalogVersion`, or nil. (An unversioned URL is signed for the image's version of the time: once a rescan may
    /// have re-sliced it, the signature is checked afresh.)
    func signedExpiry(name: Substring, query: Substring, catalogVersion: Int) -> Int? {
        for entry in signed where entry.catalogVersion == catalogVersion && Self.same(entry.name, name) && Self.sameSecret(entry.query, query) {
            return entry.expires
        }
        return nil
    }

    /// Remembers a signed tile URL verified at catalog version `catalogVersion`.
    func rememberSigned(name: Substring, query: Substring, catalogVersion: Int, expires: Int) {
        Self.put((String(name), String(query), catalogVersion, expires), into: &signed, at: &nextSigned)
    }

    /// A token verified before whose text is `text`, or nil.
    func token(_ text: Substring) -> AccessToken? {
        for entry in tokens where Self.sameSecret(entry.text, text) {
            return entry.token
        }
        return nil
    }

    /// The token that `credential` presented when it was granted image `name` (as in the URL) while the catalog was at
    /// version `catalogVersion`, or nil. Its expiry is the caller's to check.
    func grant(name: Substring, credential: Substring, catalogVersion: Int) -> AccessToken? {
        for entry in grants
        where entry.catalogVersion == catalogVersion && Self.same(entry.name, name) && Self.sameSecret(entry.credential, credential) {
            return entry.token
        }
        return nil
    }

    /// Remembers that `credential` (verified as `token`) was granted image `name` at catalog version `catalogVersion`.
    func rememberGrant(name: Substring, credential: Substring, catalogVersion: Int, token: AccessToken) {
        Self.put((String(name), String(credential), catalogVersion, token), into: &grants, at: &nextGrant)
    }

    /// Remembers a verified token.
    func rememberToken(_ text: Substring, _ token: AccessToken) {
        Self.put((String(text), token), into: &tokens, at: &nextToken)
    }

    /// A private image's signed tile URLs in one window: their query, and the end of its Deep Zoom tile URLs
    /// (`.FORMAT?QUERY`), which every visible-rect answer appends to each tile's path.
    typealias SignedTiles = (query: String, urlSuffix: String)

    /// The signed tile URLs of image `image` in window `window` (made by `make` the first time).
    func signedTiles(image: Int, window: Int, make: () -> SignedTiles) -> SignedTiles {
        for entry in tileQueries where entry.image == image && entry.window == window {
            return entry.signed
        }
        let signed = make()
        Self.put((image, window, signed), into: &tileQueries, at: &nextTileQuery)
        return signed
    }

    /// The `Cache-Control` and `X-Cache` lines of a signed tile expiring at `expires`, answered at `now` (Unix seconds).
    func signedTileLines(expires: Int, now: Int, hit: Bool) -> ByteBuffer {
        if let lines = cacheControl, lines.now == now, lines.expires == expires {
            return hit ? lines.hit : lines.miss
        }
        let line = AccessPolicy.signedCacheControlLine(expires: expires, now: now)
        let lines = (now, expires, ByteBuffer(string: line + "X-Cache: hit\r\n"), ByteBuffer(string: line + "X-Cache: miss\r\n"))
        cacheControl = lines
        return hit ? lines.2 : lines.3
    }

    /// Whether `text` and `other` are the same bytes (a `memcmp` where both are contiguous, as native strings are:
    /// this runs on every private tile request). For what is not secret (names).
    private static func same(_ text: String, _ other: Substring) -> Bool {
        let count = text.utf8.count
        guard count == other.utf8.count else { return false }
        guard count > 0 else { return true }
        let compared = text.utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in memcmp(left.baseAddress!, right.baseAddress!, count) == 0 }
        }
        return (compared ?? nil) ?? text.utf8.elementsEqual(other.utf8)
    }

    /// Whether `secret` and `presented` are the same bytes, in a time that depends on their lengths only, not on where
    /// they first differ. (A comparison, not cryptography: every byte pair is XORed and the differences ORed.)
    static func sameSecret(_ secret: String, _ presented: Substring) -> Bool {
        let compared = secret.utf8.withContiguousStorageIfAvailable { left in
            presented.utf8.withContiguousStorageIfAvailable { right in sameBytes(left, right) }
        }
        return (compared ?? nil) ?? sameBytes(Array(secret.utf8)[...], Array(presented.utf8)[...])
    }

    /// Whether `left` and `right` are the same bytes, in a time that depends on their lengths only.
    static func sameBytes<Bytes: RandomAccessCollection<UInt8>>(_ left: Bytes, _ right: Bytes) -> Bool where Bytes.Index == Int {
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for offset in 0..<left.count {
            difference |= left[left.startIndex + offset] ^ right[right.startIndex + offset]
        }
        return difference == 0
    }

    private static func put<Entry>(_ entry: Entry, into entries: inout [Entry], at next: inout Int) {
        if entries.count < capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % capacity
        }
    }
}
