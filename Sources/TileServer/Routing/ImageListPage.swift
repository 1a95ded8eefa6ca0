import HTTPCore
import Rendering

/// Which part of the image list `GET /api/images` asks for: all of it (no `offset` and no `limit`, today's answer), or
/// the page `offset ..< offset + limit` of the images sorted by name.
struct ImageListPage: Equatable {
    /// The most images one page holds.
    static let maxLimit = 1000
    /// The page size when only `offset` is given.
    static let defaultLimit = 100

    /// The first image's index in the sorted list (0-based).
    var offset: Int
    /// The most images in the page, 1 … ``maxLimit``.
    var limit: Int

    /// The page `query` asks for, or `nil` for the whole list (neither parameter given).
    ///
    /// - Throws: ``RequestError`` 400 when `offset` is not an integer ≥ 0 or `limit` not an integer in
    ///   1 … ``maxLimit``.
    init?(query: QueryString) throws(RequestError) {
        let offsetText = query.value(named: "offset")
        let limitText = query.value(named: "limit")
        if offsetText == nil && limitText == nil { return nil }
        offset = try Self.integer(offsetText, named: "offset", in: 0...Int(Int32.max), default: 0)
        limit = try Self.integer(limitText, named: "limit", in: 1...Self.maxLimit, default: Self.defaultLimit)
    }

    /// A page; for tests and links.
    init(offset: Int, limit: Int) {
        self.offset = offset
        self.limit = limit
    }

    /// The `Link` and `X-Total-Count` header lines of this page of a list of `total` images (each ending in CRLF):
    /// `rel="next"` when images follow, `rel="prev"` when some precede.
    ///
    /// - Parameter token: A token the request brought in its query, carried on to the linked pages (see
    ///   ``linkable(token:)``); nil for a request that brought its token in a header, or none.
    func headerLines(total: Int, token: String? = nil) -> String {
        var links: [String] = []
        let carried = token.map { "&token=" + $0 } ?? ""
        if offset + limit < total {
            links.append("</api/images?offset=\(offset + limit)&limit=\(limit)\(carried)>; rel=\"next\"")
        }
        if offset > 0 {
            links.append("</api/images?offset=\(max(0, min(offset, total) - limit))&limit=\(limit)\(carried)>; rel=\"prev\"")
        }
        let link = links.isEmpty ? "" : "Link: " + links.joined(separator: ", ") + "\r\n"
        return link + "X-Total-Count: \(total)\r\n"
    }

    /// `token` as it may stand in a `Link` URL's query: only when it is all URL-safe characters (a token is base64url
    /// and dots), so nothing in it needs escaping or could end the header; nil otherwise (the link then carries none).
    static func linkable(token: Substring) -> String? {
        let safe = { (c: UInt8) in
            (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) || c == 0x2D || c == 0x5F || c == 0x2E
        }
        guard !token.isEmpty, token.utf8.count <= 4096, token.utf8.allSatisfy(safe) else { return nil }
        return String(token)
    }

    private static func integer(_ text: Substring?, named name: String, in range: ClosedRange<Int>, default value: Int) throws(RequestError) -> Int {
        guard let text else { return value }
        // Digits only, as IIIF's numbers: `Int("+5")` would accept a sign; leading zeros are harmless.
        guard let number = IIIFNumber.integer(text), range.contains(number) else {
            throw .badRequest("\(name) must be an integer \(range.lowerBound)…\(range.upperBound) (got \(text.prefix(32)))")
        }
        return number
    }
}
