import NIOCore
import NIOHTTP1

/// One request being answered: what the response depends on besides its route, and when it started.
package struct Exchange {
    /// When the request's head was handled, for the latency histogram.
    package let started: NIODeadline
    /// Whether the method was `HEAD` (send the head only).
    package let isHead: Bool
    /// Whether the client wants the connection kept open after this response.
    package let keepAlive: Bool
    /// Whether the client speaks HTTP/1.0 (keep-alive must then be confirmed explicitly).
    package let isHTTP10: Bool
    /// Whether the request came on an HTTP/2 stream, for the access log.
    package let isHTTP2: Bool
    /// The method, for the access log.
    package let method: HTTPMethod
    /// The request target as sent, for the access log (`-` when unparsable).
    package let target: String
    /// The less common header values the answer may depend on, if the request has any.
    package let headers: RequestHeaderValues?
    /// Whether a tile came from the cache, for the access log.
    package var cache: CacheOutcome = .none
    /// The route, for metrics (``RouteLabel/invalid`` until the path is routed).
    package var route: RouteLabel = .invalid
    /// The work producing the answer elsewhere (a render), if any: the connection cancels it when the client goes.
    package var work: (any CancellableWork)?

    /// The exchange for `head`.
    package init(head: HTTPRequestHead) {
        started = .now()
        isHead = head.method == .HEAD
        // An HTTP/2 stream carries one request and ends with its answer's END_STREAM: nothing to keep alive or close.
        keepAlive = head.version.major == 2 || head.isKeepAlive
        isHTTP10 = head.version.major == 1 && head.version.minor == 0
        isHTTP2 = head.version.major == 2
        method = head.method
        target = head.uri
        headers = .holding(
            ifNoneMatch: head.headers.first(name: "if-none-match"), origin: head.headers.first(name: "origin"),
            range: head.headers.first(name: "range"), ifRange: head.headers.first(name: "if-range"),
            authorization: head.headers.first(name: "authorization"),
            cookieToken: Self.cookie(named: "tiler_token", in: head.headers[canonicalForm: "cookie"]))
    }

    /// The exchange for a request read by ``SimpleRequestDecoder``.
    package init(_ request: SimpleRequest) {
        started = .now()
        isHead = request.isHead
        keepAlive = request.keepAlive
        isHTTP10 = request.isHTTP10
        isHTTP2 = false
        method = request.isHead ? .HEAD : .GET
        target = request.uri
        headers = request.headers
    }

    /// The exchange for a request that could not even be parsed: answered, then the connection is closed.
    package init(malformedAt started: NIODeadline) {
        self.started = started
        isHead = false
        keepAlive = false
        isHTTP10 = false
        isHTTP2 = false
        method = .RAW(value: "-")
        target = "-"
        headers = nil
    }
}

extension Exchange {
    /// The `If-None-Match` header, if any.
    package var ifNoneMatch: String? { headers?.ifNoneMatch }
    /// The `Origin` header (a cross-origin request), if any.
    package var origin: String? { headers?.origin }
    /// The `Range` header, if any (answered for responses sent from a file).
    package var range: String? { headers?.range }
    /// The `If-Range` header, if any.
    package var ifRange: String? { headers?.ifRange }
    /// The `Authorization` header (an access token), if any; never logged.
    package var authorization: String? { headers?.authorization }
    /// The `tiler_token` cookie (an access token, for IIIF clients of the Authorization Flow, whose image requests
    /// carry cookies, not headers), read from requests NIO's decoder reads (IIIF's); never logged.
    package var cookieToken: Substring? { headers?.cookieToken }

    /// The value of cookie `name` in `Cookie` header values, if any. O(n) in their length.
    package static func cookie(named name: String, in values: [Substring]) -> Substring? {
        for value in values {
            for pair in value.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                if trimmed.hasPrefix(name + "=") { return trimmed.dropFirst(name.count + 1) }
            }
        }
        return nil
    }
}

/// Where a tile's bytes came from, as the access log says.
package enum CacheOutcome: Sendable {
    /// Not a tile (or not known).
    case none
    /// From the tile cache.
    case hit
    /// Read from its file.
    case miss
    /// Not in the cache, but already being read (by the warming thread or another request): waited for that read.
    case join
}
