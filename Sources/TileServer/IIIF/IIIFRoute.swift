/// What a request under `/iiif/3/` asks for (Image API 3.0 §2), matched from the raw request target.
///
/// The identifier is one path segment: a `/` inside it arrives percent-encoded as `%2F` (§3, §9), so an image the
/// catalog names `maps/city` has the identifier `maps%2Fcity`. Each segment is percent-decoded exactly once, after
/// splitting, so `%2F` can never create a path segment and `%252F` stays the literal text `%2F`. The decoded
/// identifier is then checked like a tile path's name (no empty, `.` or `..` segments, no control characters or
/// backslashes); it is only ever looked up in the catalog, never used as a file path.
enum IIIFRoute: Equatable {
    /// `/iiif/3/{id}`: the base URI, redirected (303) to the image information.
    case base(identifier: String)
    /// `/iiif/3/{id}/info.json`: the image information.
    case info(identifier: String)
    /// `/iiif/3/{id}/{region}/{size}/{rotation}/{quality}.{format}`: an image.
    case image(identifier: String, region: Substring, size: Substring, rotation: Substring, qualityAndFormat: Substring)
    /// Any other path under `/iiif/`: 404.
    case unknown

    /// The path prefix of the service (the `{/prefix}` of the URI templates).
    static let prefix = "/iiif/3"

    /// Matches the request target `uri` (which starts with `/iiif/`); the query, if any, is ignored.
    ///
    /// - Throws: ``RequestError`` 400 for a path longer than `maxPathBytes`, malformed escapes, control characters,
    ///   backslashes, a raw `#`, or an identifier that is not a valid image name.
    init(uri: String, maxPathBytes: Int) throws(RequestError) {
        let path = uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { uri[..<$0] } ?? uri[...]
        guard path.utf8.count <= maxPathBytes else { throw .badRequest("the path is longer than \(maxPathBytes) bytes") }
        guard path.utf8.starts(with: (Self.prefix + "/").utf8) else {
            self = .unknown
            return
        }
        let segments = path.utf8.dropFirst(Self.prefix.utf8.count + 1).split(
            separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard segments.count == 1 || segments.count == 2 || segments.count == 5 else {
            self = .unknown
            return
        }
        let identifier = try IIIFIdentifier.decode(Substring(segments[0]))
        switch segments.count {
        case 1:
            self = .base(identifier: identifier)
        case 2:
            self = Substring(segments[1]) == "info.json" ? .info(identifier: identifier) : .unknown
        default:
            let parameters = try segments.dropFirst().map { bytes throws(RequestError) in try Self.parameter(Substring(bytes)) }
            self = .image(
                identifier: identifier, region: parameters[0], size: parameters[1], rotation: parameters[2],
                qualityAndFormat: parameters[3])
        }
    }

    /// A parameter segment, percent-decoded once: clients may encode `!`, `^`, `:` or `,`. Any byte outside
    /// printable ASCII, or a `/`, makes it malformed.
    private static func parameter(_ segment: Substring) throws(RequestError) -> Substring {
        let decoded = segment.utf8.contains(UInt8(ascii: "%")) ? try IIIFIdentifier.percentDecode(segment)[...] : segment
        for byte in decoded.utf8 where byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") {
            throw .badRequest("the request parameter \(segment) has a character that is not allowed")
        }
        return decoded
    }
}
