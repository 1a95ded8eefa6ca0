import NIOCore

/// A response whose HTTP semantics are decided — status (200, 206, 304, 416, …), which header lines, whether a body
/// goes and which bytes of it, whether the connection closes — so that writing it is encoding only. Made from a
/// route's ``Response`` by ``Response/settled(for:closing:blocks:)``; ``ConnectionHandler`` encodes it.
///
/// Every piece is a buffer prepared earlier (a profile's head, a file's `ETag`/`Content-Length` lines) or a number
/// formatted while encoding: settling a tile answer formats nothing and copies no body.
package struct SettledResponse {
    /// What follows the head.
    package enum Body {
        /// Nothing (`HEAD`, 304, an empty body).
        case none
        /// These bytes (a slice of a cached file, a JSON body), sent without a copy.
        case bytes(ByteBuffer)
        /// `range` of an open file (relative to the part of the file the response stands for), sent with
        /// `sendfile`: the kernel copies page cache to socket. The file stays open until it has been sent.
        case region(OpenFile, Range<Int>)
        /// A source's events, written as they come until its last (then the connection closes).
        case events(any EventSource)
    }

    /// How the head ends, after the common lines.
    package enum Tail {
        /// Prepared lines ending in the blank line (a file's `ETag` and `Content-Length` lines, or its `ETag` line
        /// alone for a 304).
        case lines(ByteBuffer, blankLine: Bool)
        /// A 206's lines: `ETag`, `Content-Range: bytes first-last/size`, `Content-Length`, the blank line.
        case partial(etagLine: ByteBuffer, range: Range<Int>, size: Int)
        /// `Content-Length: N` and the blank line.
        case length(Int)
    }

    /// The status sent (for metrics and the access log too).
    package let status: HTTPStatus
    /// The status line and the fixed header lines, pre-encoded (a profile's `ok` or `notModified`), or the status
    /// line alone when ``fixedLines`` follow.
    package let lead: ByteBuffer
    /// Fixed header lines without a status line (a profile's `headerLines`), when ``lead`` is a bare status line.
    package let fixedLines: ByteBuffer?
    /// The route's own header lines as a buffer (`X-Cache`, IIIF's `Link` and `Vary`).
    package let routeLines: ByteBuffer?
    /// The route's own header lines as text (errors' and JSON answers'; never on the tile path).
    package let routeText: String
    /// The CORS origin line for this request's `Origin`, when origins are listed and it is one of them.
    package let allowOrigin: ByteBuffer?
    /// Whether the connection closes after this response (`Connection: close` is sent).
    package let close: Bool
    package let tail: Tail
    package let body: Body
    /// Body bytes sent, for metrics and the access log.
    package let bodyBytes: Int
    /// Memory the body holds against the render budget, released once the body has been written (or the write
    /// failed).
    package let reservation: (any BodyReservation)?
}
