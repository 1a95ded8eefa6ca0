import NIOCore
import NIOHTTP1
import NIOPosix

/// The metrics listener (`--metrics-port`, on `--metrics-host`, loopback by default): `GET /metrics` (Prometheus text)
/// and `GET /healthz` with every count, private images' included, apart from the port clients reach. Operators
/// scrape it; under an access policy the main port answers neither with a count (see ``Router``).
///
/// It uses NIO's own HTTP/1.1 server pipeline: a handful of requests a minute need none of the main port's fast path.
enum MetricsListener {
    /// Binds the listener on `group` and returns its channel.
    ///
    /// - Throws: What binding throws (the address is taken, or not this machine's).
    static func bind(host: String, port: Int, group: any EventLoopGroup, services: Services) async throws -> any Channel {
        let idle = TimeAmount(services.configuration.idleTimeout)
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(allTimeout: idle))
                    try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                    try pipeline.addHandler(MetricsRequestHandler(services: services))
                }
            }
            .bind(host: host, port: port).get()
    }

    /// The answer to `method` on `path`: status, content type and body.
    static func answer(method: HTTPMethod, path: Substring, services: Services) -> (HTTPResponseStatus, String, String) {
        guard method == .GET || method == .HEAD else {
            return (.methodNotAllowed, "text/plain; charset=utf-8", "use GET or HEAD\n")
        }
        switch path {
        case "/metrics":
            return (.ok, "text/plain; version=0.0.4; charset=utf-8", services.metrics.prometheusText(statistics: services.statistics))
        case "/healthz":
            return (.ok, "application/json", Router.healthJSON(images: services.catalog.count))
        default:
            return (.notFound, "text/plain; charset=utf-8", "the metrics listener answers /metrics and /healthz\n")
        }
    }
}

/// One connection of the ``MetricsListener``: answers each request as it ends, keeping the connection alive when the
/// client asks to.
private final class MetricsRequestHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let services: Services
    private var head: HTTPRequestHead?

    init(services: Services) {
        self.services = services
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
        let path = request.uri.prefix { $0 != "?" }
        let (status, type, text) = MetricsListener.answer(method: request.method, path: path, services: services)
        let body = ByteBuffer(string: text)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: type)
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Cache-Control", value: "no-store")
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
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
