import NIOCore
import NIOHTTP1
import NIOPosix

/// A small listener beside the main port — the metrics (``MetricsListener``) and the HTTPS redirect
/// (``HTTPSRedirectListener``) — on NIO's own HTTP/1.1 server pipeline: a handful of requests need none of the main
/// port's fast path. Each request is answered as it ends with what `answer` makes of its head; the connection is kept
/// alive when the client asks to, and closed when idle for the idle timeout.
enum SideListener {
    /// What a side listener answers: the status, the header fields (`Content-Length` is added), the body as text.
    struct Answer {
        let status: HTTPResponseStatus
        let headers: HTTPHeaders
        let body: String
    }

    /// Binds a side listener on `group`, answering with `answer`, and returns its channel.
    ///
    /// - Throws: What binding throws (the address is taken, or not this machine's).
    static func bind(
        host: String, port: Int, group: any EventLoopGroup, idle: TimeAmount, answer: @escaping @Sendable (HTTPRequestHead) -> Answer
    ) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    try pipeline.addHandler(IdleStateHandler(allTimeout: idle))
                    try pipeline.configureHTTPServerPipeline(withErrorHandling: true)
                    try pipeline.addHandler(SideListenerHandler(answer: answer))
                }
            }
            .bind(host: host, port: port).get()
    }
}

/// One connection of a ``SideListener``.
private final class SideListenerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let answer: (HTTPRequestHead) -> SideListener.Answer
    private var head: HTTPRequestHead?

    init(answer: @escaping (HTTPRequestHead) -> SideListener.Answer) {
        self.answer = answer
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
        let answer = answer(request)
        let body = ByteBuffer(string: answer.body)
        var headers = answer.headers
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        let keepAlive = request.isKeepAlive
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: answer.status, headers: headers))), promise: nil)
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
