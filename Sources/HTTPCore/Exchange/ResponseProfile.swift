import NIOCore

/// How one kind of content is answered — its `Content-Type`, `Cache-Control` and CORS header — with the fixed part
/// of its response heads encoded once, so that answering it costs no formatting. A class, so that passing one along
/// retains one object rather than each of its buffers.
package final class ResponseProfile: Sendable {
    /// `HTTP/1.1 200 OK` followed by `Server`, `Content-Type`, `Cache-Control`, `Accept-Ranges` where ranges are
    /// answered and the CORS policy's fixed lines, each ending in CRLF.
    package let ok: ByteBuffer
    /// The same lines after `HTTP/1.1 304 Not Modified`.
    package let notModified: ByteBuffer
    /// The header lines alone, without a status line (for responses with other statuses).
    package let headerLines: ByteBuffer

    /// Cache-Control for tiles and descriptors under versioned URLs (`NAME@VERSION`): a re-slice changes the URL.
    package static let immutable = "public, max-age=31536000, immutable"
    /// Cache-Control for JSON answers and descriptors: short, since images come and go.
    package static let short = "public, max-age=5"
    /// Cache-Control for the viewer's files, unversioned tile URLs and IIIF images: always revalidate (cheap with
    /// ETags).
    package static let revalidate = "no-cache"
    /// Cache-Control for errors, metrics and health.
    package static let noStore = "no-store"
    /// Cache-Control for answers to an access token (a private image's descriptor, visible tiles, image list): for
    /// that client only, never stored.
    package static let privateNoStore = "private, no-store"

    /// Encodes the head blocks for `contentType` with `cacheControl` (nil: the response adds its own, e.g. a signed
    /// tile's max-age), `Referrer-Policy: no-referrer` (a page or image the server sends must not hand its URL, which
    /// may carry a token or signature, to other sites), adding `cors`'s fixed lines when given and
    /// `Accept-Ranges: bytes` when `acceptsRanges` (responses sent from a file, which answer `Range`), and
    /// `X-Content-Type-Options: nosniff` when `noSniff` (bodies that may reflect what a request said: a browser must
    /// not take them for anything but their type).
    package init(contentType: String, cacheControl: String?, cors: CORSPolicy?, acceptsRanges: Bool = false, noSniff: Bool = false) {
        var common = "Server: tiler\r\nContent-Type: \(contentType)\r\n"
        if let cacheControl { common += "Cache-Control: \(cacheControl)\r\n" }
        common += "Referrer-Policy: no-referrer\r\n"
        if acceptsRanges { common += "Accept-Ranges: bytes\r\n" }
        if noSniff { common += "X-Content-Type-Options: nosniff\r\n" }
        if let cors { common += cors.fixedLines }
        headerLines = ByteBuffer(string: common)
        ok = ByteBuffer(string: HTTPStatus.ok.statusLine + common)
        notModified = ByteBuffer(string: HTTPStatus.notModified.statusLine + common)
    }
}
