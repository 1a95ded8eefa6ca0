import NIOCore
import NIOHTTP1

/// What a ``Responder`` answers, as a value; ``ConnectionHandler`` settles it and is the one writer that turns it into bytes
/// on the socket (status line, the profile's pre-encoded header lines, `Date`, the connection line, the body).
///
/// Cheap to make on the hot path: every payload is a reference or a small struct, nothing is formatted until
/// written. What HTTP makes of it for one request — 304, 206, 416, `HEAD`, CORS, the connection line — is decided
/// in one step, ``settled(for:closing:blocks:)``.
package enum Response: Sendable {
    /// A file's bytes in memory (a cached tile, a descriptor, a viewer file, a rendered image): 200 with `profile`'s
    /// head, or 304 when the request's `If-None-Match` matches its entity tag. `extraHeaders` are header lines written
    /// after the `Date` line (`X-Cache`, IIIF's `Link`).
    case file(LoadedFile, profile: ResponseProfile, extraHeaders: ByteBuffer?)
    /// Bytes made for this answer (a rendered image), like ``file(_:profile:extraHeaders:)``, that count against a
    /// budget until the body has been written to the socket or the connection has closed: the writer releases
    /// `reservation` then.
    case rendered(LoadedFile, profile: ResponseProfile, extraHeaders: ByteBuffer, reservation: any BodyReservation)
    /// A file sent from its open descriptor with `sendfile`, otherwise like ``file(_:profile:extraHeaders:)``.
    case openFile(OpenFile, profile: ResponseProfile, extraHeaders: ByteBuffer)
    /// An answer whose entity tag and head are known before the work that makes its body (an IIIF render):
    /// settling answers 304 or `HEAD` from them, and calls `start` only when the body is wanted. `start` begins the
    /// work and returns the answer for now (``later``, or a refusal such as 503 when the server is busy) and the
    /// work the connection cancels if the client goes.
    case deferred(
        etag: String, profile: ResponseProfile, extraHeaders: ByteBuffer, start: @Sendable () -> (Response, (any CancellableWork)?))
    /// `status` with `headerLines` (e.g. a profile's), `extraHeaders` (each line ending in CRLF) and `body`.
    case body(status: HTTPStatus, headerLines: ByteBuffer, extraHeaders: String, body: ByteBuffer)
    /// A refusal: its status and a JSON body `{"error":"…","status":N}`; `close` closes the connection after it.
    case error(RequestError, extraHeaders: String, close: Bool)
    /// A source's changes as Server-Sent Events (`text/event-stream`), until it ends; the connection then closes. The
    /// connection writes it itself (``ConnectionHandler/streamEvents(_:exchange:context:)``), never settled.
    case events(any EventSource)
    /// The answer is being produced elsewhere (a file thread's read, a render) and will be handed to the
    /// connection's ``ResponseDelivery`` once; later requests on the connection wait for it.
    case later

    /// Gives back what a response that will never be written holds (a rendered body's budget); it is safe to call on
    /// any response.
    package func discard() {
        if case .rendered(_, _, _, let reservation) = self {
            reservation.release()
        }
    }

    /// A refusal that keeps the connection open.
    package static func error(_ error: RequestError) -> Response {
        .error(error, extraHeaders: "", close: false)
    }

    /// 405 for a request whose method its resource does not take, with `Allow` (the methods it takes, `allowed`),
    /// closing the connection (its body is never read); `message` instead of the usual one.
    package static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod], message: String? = nil) -> Response {
        let names = allowed.map(\.rawValue)
        let words = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        let error = RequestError(status: .methodNotAllowed, message: message ?? "method \(method) is not allowed; use \(words)")
        return .error(error, extraHeaders: "Allow: \(names.joined(separator: ", "))\r\n", close: true)
    }

    /// 200 with `body` and `profile`'s header lines.
    package static func ok(_ body: ByteBuffer, profile: ResponseProfile) -> Response {
        .body(status: .ok, headerLines: profile.headerLines, extraHeaders: "", body: body)
    }
}

/// Where a ``Response/later`` answer goes: the connection's, callable once from any thread.
package typealias ResponseDelivery = @Sendable (Response) -> Void
