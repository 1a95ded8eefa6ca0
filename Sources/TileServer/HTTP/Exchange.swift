import NIOCore
import NIOHTTP1

/// One request being answered: what the response depends on besides its route, and when it started.
struct Exchange {
    /// When the request's head was handled, for the latency histogram.
    let started: NIODeadline
    /// Whether the method was `HEAD` (send the head only).
    let isHead: Bool
    /// Whether the client wants the connection kept open after this response.
    let keepAlive: Bool
    /// Whether the client speaks HTTP/1.0 (keep-alive must then be confirmed explicitly).
    let isHTTP10: Bool
    /// The `If-None-Match` header, if any.
    let ifNoneMatch: String?
    /// The route, for metrics (``RouteLabel/invalid`` until the path is routed).
    var route: RouteLabel = .invalid

    /// The exchange for `head`.
    init(head: HTTPRequestHead) {
        started = .now()
        isHead = head.method == .HEAD
        keepAlive = head.isKeepAlive
        isHTTP10 = head.version.major == 1 && head.version.minor == 0
        ifNoneMatch = head.headers.first(name: "if-none-match")
    }

    /// The exchange for a request read by ``SimpleRequestDecoder``.
    init(_ request: SimpleRequest) {
        started = .now()
        isHead = request.isHead
        keepAlive = request.keepAlive
        isHTTP10 = request.isHTTP10
        ifNoneMatch = request.ifNoneMatch
    }

    /// The exchange for a request that could not even be parsed: answered, then the connection is closed.
    init(malformedAt started: NIODeadline) {
        self.started = started
        isHead = false
        keepAlive = false
        isHTTP10 = false
        ifNoneMatch = nil
    }
}
