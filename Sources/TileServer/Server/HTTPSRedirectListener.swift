import NIOCore
import NIOHTTP1
import NIOPosix

/// The plain-HTTP listener of `--redirect-http PORT` beside a TLS port: every request is answered `308 Permanent
/// Redirect` to the same path and query over `https://`, on the host the request named and the TLS port (left out
/// when 443). 308 keeps the method and body (RFC 9110 §15.4.9), so an upload is not turned into a GET. A request
/// without a well-formed `Host` gets 400: a redirect must not send a client to a host made up of its own bytes.
///
/// It uses NIO's own HTTP/1.1 server pipeline, like ``MetricsListener``: it serves nothing but redirects.
enum HTTPSRedirectListener {
    /// Binds the listener on `group`, redirecting to `tlsPort`, and returns its channel.
    ///
    /// - Throws: What binding throws (the address is taken, or not this machine's).
    static func bind(host: String, port: Int, tlsPort: Int, group: any EventLoopGroup, idle: TimeAmount) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(allTimeout: idle))
                    try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                    try pipeline.addHandler(RedirectHandler(tlsPort: tlsPort))
                }
            }
            .bind(host: host, port: port).get()
    }

    /// The `Location` for a request for `uri` that named `host` (its `Host` header, port and all), to `tlsPort`; nil
    /// when `host` is not a plain host name or address.
    static func location(uri: String, host: String?, tlsPort: Int) -> String? {
        guard let host, !host.isEmpty, host.utf8.count <= 255 else { return nil }
        let name: Substring
        if host.hasPrefix("[") {
            // [v6 address] or [v6 address]:port
            guard let close = host.firstIndex(of: "]") else { return nil }
            name = host[...close]
            guard name.dropFirst().dropLast().allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
        } else {
            name = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)[0]
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) else { return nil }
        }
        let target = uri.hasPrefix("/") ? uri : "/"
        guard target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        return "https://\(name)\(tlsPort == 443 ? "" : ":\(tlsPort)")\(target)"
    }
}

/// One connection of the ``HTTPSRedirectListener``.
private final class RedirectHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let tlsPort: Int
    private var head: HTTPRequestHead?

    init(tlsPort: Int) {
        self.tlsPort = tlsPort
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            head = request
        case .body:
            break
        case .end:
            guard let request = head else { return }
            head = nil
            respond(to: request, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is IdleStateHandler.IdleStateEvent {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    private func respond(to request: HTTPRequestHead, context: ChannelHandlerContext) {
        let location = HTTPSRedirectListener.location(uri: request.uri, host: request.headers.first(name: "Host"), tlsPort: tlsPort)
        let text = location.map { "This server speaks HTTPS: \($0)\n" } ?? "This server speaks HTTPS: send a Host header naming it\n"
        let body = ByteBuffer(string: text)
        var headers = HTTPHeaders()
        if let location { headers.add(name: "Location", value: location) }
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        let status: HTTPResponseStatus = location == nil ? .badRequest : .permanentRedirect
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: status, headers: headers))), promise: nil)
        if request.method != .HEAD {
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
