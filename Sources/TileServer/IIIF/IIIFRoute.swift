import Glibc
import HTTPCore

/// What a request under `/iiif/3/` asks for (Image API 3.0 §2), matched from the raw request target.
///
/// The identifier is one path segment: a `/` inside it arrives percent-encoded as `%2F` (§3, §9), so an image the
/// catalog names `maps/city` has the identifier `maps%2Fcity`. Each segment is percent-decoded exactly once, after
/// splitting, so `%2F` can never create a path segment and `%252F` stays the literal text `%2F`. The decoded
/// identifier is then checked like a tile path's name (no empty, `.` or `..` segments, no control characters or
/// backslashes); it is only ever looked up in the catalog, never used as a file path.
///
/// Without escapes, the identifier and parameters are slices of the request's URI: no allocation.
enum IIIFRoute: Equatable {
    /// `/iiif/3/{id}`: the base URI, redirected (303) to the image information.
    case base(identifier: Substring)
    /// `/iiif/3/{id}/info.json`: the image information.
    case info(identifier: Substring)
    /// `/iiif/3/{id}/{region}/{size}/{rotation}/{quality}.{format}`: an image.
    case image(identifier: Substring, region: Substring, size: Substring, rotation: Substring, qualityAndFormat: Substring)
    /// `/iiif/3/{id}/probe`: the IIIF Authorization Flow 2.0 probe service of a private image.
    case probe(identifier: Substring)
    /// `/iiif/auth/token`: the access token service (Authorization Flow 2.0, external pattern).
    case accessToken
    /// Any other path under `/iiif/`: 404.
    case unknown

    /// The path prefix of the service (the `{/prefix}` of the URI templates).
    static let prefix = "/iiif/3"
    /// The path of the access token service.
    static let tokenServicePath: StaticString = "/iiif/auth/token"

    /// Whether the request target `target` (its bytes) is IIIF's to answer: everything under `/iiif/`, including
    /// other versions, which get its 404. The router and ``SimpleRequestDecoder`` (which leaves these requests, answered
    /// from their headers, to NIO's decoder) decide by this one rule.
    static func claims(_ target: some Sequence<UInt8>) -> Bool {
        target.starts(with: "/iiif/".utf8)
    }

    /// ``claims(_:)`` for a target's bytes in memory (every simple request's), compared in place: iterating both
    /// sequences costs about 150 instructions a request.
    static func claims(_ target: UnsafeRawBufferPointer) -> Bool {
        let prefix: StaticString = "/iiif/"
        return target.count >= prefix.utf8CodeUnitCount && memcmp(target.baseAddress!, prefix.utf8Start, prefix.utf8CodeUnitCount) == 0
    }

    /// Matches the request target `uri` (which starts with `/iiif/`); the query, if any, is ignored.
    ///
    /// - Throws: ``RequestError`` 400 for a path longer than `maxPathBytes`, malformed escapes, control characters,
    ///   backslashes, a raw `#`, or an identifier that is not a valid image name.
    init(uri: String, maxPathBytes: Int) throws(RequestError) {
        let path = uri.utf8.firstIndex(of: UInt8(ascii: "?")).map { uri[..<$0] } ?? uri[...]
        guard path.utf8.count <= maxPathBytes else { throw .badRequest("the path is longer than \(maxPathBytes) bytes") }
        if path.isBytes(Self.tokenServicePath) {
            self = .accessToken
            return
        }
        guard path.hasBytePrefix("/iiif/3/") else {
            self = .unknown
            return
        }
        // Up to five segments, as slices of the URI (a sixth means no route).
        var segments = (path[...], path[...], path[...], path[...], path[...])
        var count = 0
        var start = path.utf8.index(path.utf8.startIndex, offsetBy: 8)
        while true {
            let end = path.utf8[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.utf8.endIndex
            switch count {
            case 0: segments.0 = path[start..<end]
            case 1: segments.1 = path[start..<end]
            case 2: segments.2 = path[start..<end]
            case 3: segments.3 = path[start..<end]
            case 4: segments.4 = path[start..<end]
            default: break
            }
            count += 1
            guard end != path.utf8.endIndex, count <= 5 else { break }
            start = path.utf8.index(after: end)
        }
        guard count == 1 || count == 2 || count == 5 else {
            self = .unknown
            return
        }
        let identifier = try IIIFIdentifier.decode(segments.0)
        switch count {
        case 1:
            self = .base(identifier: identifier)
        case 2:
            self =
                segments.1.isBytes("info.json")
                ? .info(identifier: identifier) : segments.1.isBytes("probe") ? .probe(identifier: identifier) : .unknown
        default:
            self = .image(
                identifier: identifier, region: try Self.parameter(segments.1), size: try Self.parameter(segments.2),
                rotation: try Self.parameter(segments.3), qualityAndFormat: try Self.parameter(segments.4))
        }
    }

    /// A parameter segment, percent-decoded once: clients may encode `!`, `^`, `:` or `,`. Any byte outside
    /// printable ASCII, or a `/` or `\`, makes it malformed.
    private static func parameter(_ segment: Substring) throws(RequestError) -> Substring {
        let decoded = segment.utf8.contains(UInt8(ascii: "%")) ? try IIIFIdentifier.percentDecode(segment)[...] : segment
        for byte in decoded.utf8 where byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") {
            throw .badRequest("the request parameter \(segment) has a character that is not allowed")
        }
        return decoded
    }
}
