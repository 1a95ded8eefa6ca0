import Glibc
import NIOCore

/// What one connection has already verified: signed tile URLs and tokens (valid ones only; each is used until its
/// expiry, checked on every use), the signed query last handed out per image, and the last `Cache-Control` lines of
/// signed tiles. A viewer sends dozens of requests on each kept-alive connection with the same signature or token:
/// after the first, checking it is a byte comparison instead of an HMAC-SHA256, query parsing and JSON decoding —
/// measured, the difference between a private tile costing about a fifth of the rate and a few percent
/// (`bench/private-vs-public.sh`). Not thread-safe: the connection's event loop only.
final class AccessMemo {
    /// Entries kept of each kind (replaced round-robin): a connection rarely shows more than a few images at once.
    static let capacity = 4

    private var signed: [(name: String, query: String, expires: Int)] = []
    private var nextSigned = 0
    private var tokens: [(text: String, token: AccessToken)] = []
    private var nextToken = 0
    private var tileQueries: [(image: Int, window: Int, query: String)] = []
    private var nextTileQuery = 0
    private var cacheControl: (now: Int, expires: Int, hit: ByteBuffer, miss: ByteBuffer)?

    /// The expiry of a signed tile URL of `name` with query `query` verified before, or nil.
    func signedExpiry(name: Substring, query: Substring) -> Int? {
        for entry in signed where Self.same(entry.query, query) && Self.same(entry.name, name) {
            return entry.expires
        }
        return nil
    }

    /// Remembers a verified signed tile URL.
    func rememberSigned(name: Substring, query: Substring, expires: Int) {
        Self.put((String(name), String(query), expires), into: &signed, at: &nextSigned)
    }

    /// A token verified before whose text is `text`, or nil.
    func token(_ text: Substring) -> AccessToken? {
        for entry in tokens where Self.same(entry.text, text) {
            return entry.token
        }
        return nil
    }

    /// Remembers a verified token.
    func rememberToken(_ text: Substring, _ token: AccessToken) {
        Self.put((String(text), token), into: &tokens, at: &nextToken)
    }

    /// The signed tile query of image `image` in window `window` (made by `make` the first time).
    func tileQuery(image: Int, window: Int, make: () -> String) -> String {
        for entry in tileQueries where entry.image == image && entry.window == window {
            return entry.query
        }
        let query = make()
        Self.put((image, window, query), into: &tileQueries, at: &nextTileQuery)
        return query
    }

    /// The `Cache-Control` and `X-Cache` lines of a signed tile expiring at `expires`, answered at `now` (Unix seconds).
    func signedTileLines(expires: Int, now: Int, hit: Bool) -> ByteBuffer {
        if let lines = cacheControl, lines.now == now, lines.expires == expires {
            return hit ? lines.hit : lines.miss
        }
        let line = "Cache-Control: public, max-age=\(max(0, expires - now))\r\n"
        let lines = (now, expires, ByteBuffer(string: line + "X-Cache: hit\r\n"), ByteBuffer(string: line + "X-Cache: miss\r\n"))
        cacheControl = lines
        return hit ? lines.2 : lines.3
    }

    /// Whether `text` and `other` are the same bytes (a `memcmp` where both are contiguous, as native strings are:
    /// this runs on every private tile request).
    private static func same(_ text: String, _ other: Substring) -> Bool {
        let count = text.utf8.count
        guard count == other.utf8.count else { return false }
        guard count > 0 else { return true }
        let compared = text.utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in memcmp(left.baseAddress!, right.baseAddress!, count) == 0 }
        }
        return (compared ?? nil) ?? text.utf8.elementsEqual(other.utf8)
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
