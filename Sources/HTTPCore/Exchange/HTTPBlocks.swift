import NIOCore

/// The HTTP core's response pieces, encoded once at startup: status lines, the connection lines, the interim
/// `100 Continue`, and the profile of error answers. A class: handing it around retains one object, where a struct of
/// a dozen buffers would retain each of them on every copy (on every request, from both cores).
package final class HTTPBlocks: Sendable {
    /// A blank line, ending a head.
    package let crlf = ByteBuffer(string: "\r\n")
    /// `HTTP/1.1 100 Continue` and the blank line: the interim answer to `Expect: 100-continue`.
    package let `continue` = ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\n")
    /// `Connection: close`
    package let connectionClose = ByteBuffer(string: "Connection: close\r\n")
    /// `Connection: keep-alive` (for HTTP/1.0 clients that asked for it).
    package let connectionKeepAlive = ByteBuffer(string: "Connection: keep-alive\r\n")
    /// `HTTP/1.1 <code> <reason>`, by ``HTTPStatus/index``.
    private let statusLines = HTTPStatus.allCases.sorted { $0.index < $1.index }.map { ByteBuffer(string: $0.statusLine) }
    /// Which origins may read answers; its lines are in every profile.
    package let cors: CORSPolicy
    /// The head of a Server-Sent Events answer up to its CORS origin line: status, type, no caching, no proxy
    /// buffering, CORS's fixed lines.
    package let eventStream: ByteBuffer
    /// JSON errors and health: not stored, never sniffed (an error names the path it was asked for).
    package let jsonNoStore: ResponseProfile

    /// The blocks for a server whose answers follow `cors`.
    package init(cors: CORSPolicy) {
        self.cors = cors
        eventStream = ByteBuffer(
            string: "HTTP/1.1 200 OK\r\nServer: tiler\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n"
                + "X-Accel-Buffering: no\r\n" + cors.fixedLines)
        jsonNoStore = ResponseProfile(contentType: "application/json", cacheControl: ResponseProfile.noStore, cors: cors, noSniff: true)
    }

    /// The status line of `status`, pre-encoded.
    package func statusLine(_ status: HTTPStatus) -> ByteBuffer {
        statusLines[status.index]
    }
}
