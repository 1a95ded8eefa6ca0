import NIOCore

/// nginx's lingering close: once the last response is written, the server shuts down its sending side and reads and
/// discards what the client still sends, for at most ``maxTime`` and ``maxBytes``, before it closes the socket.
///
/// Closing with unread input makes the kernel answer with a reset, and a reset discards the response the client has
/// not read yet: a client that sent a 200 KB header would see "connection reset" instead of the 431 written to it.
/// Installed at the front of the pipeline by ``start(context:)``, so the bytes never reach the decoders.
final class LingeringCloseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    /// The most the server reads and discards before it closes anyway.
    static let maxBytes = 1 << 20
    /// The longest the server waits for the client to finish sending or to close its side.
    static let maxTime = TimeAmount.seconds(2)

    private var discarded = 0
    private var timer: Scheduled<Void>?

    /// Ends `context`'s connection once everything written so far is sent: half-closes it and lingers, or closes
    /// it at once when the client already closed its side or the channel cannot half-close.
    static func start(context: ChannelHandlerContext, inputClosed: Bool) {
        guard !inputClosed else {
            context.close(promise: nil)
            return
        }
        let channel = context.channel
        let promise = context.eventLoop.makePromise(of: Void.self)
        context.close(mode: .output, promise: promise)
        promise.futureResult.assumeIsolated().whenComplete { result in
            guard case .success = result, channel.isActive else {
                channel.close(promise: nil)
                return
            }
            do {
                // The request deadlines no longer apply (one would close the socket mid-linger): the linger has its own.
                let operations = channel.pipeline.syncOperations
                if let timeouts = try? operations.handler(type: ConnectionTimeoutHandler.self) {
                    operations.removeHandler(timeouts, promise: nil)
                }
                try operations.addHandler(LingeringCloseHandler(), position: .first)
            } catch {
                channel.close(promise: nil)
            }
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        timer = context.eventLoop.assumeIsolated().scheduleTask(in: Self.maxTime) {
            context.close(promise: nil)
        }
        context.read()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        discarded += unwrapInboundIn(data).readableBytes
        if discarded > Self.maxBytes { context.close(promise: nil) }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // The handlers behind this one hold their reads while closing: ask for more here.
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
