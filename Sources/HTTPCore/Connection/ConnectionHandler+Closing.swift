import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

extension ConnectionHandler {
    /// Stops answering and ends the connection once everything written so far has been sent, with a lingering
    /// close (the state's ``ConnectionState/Phase/lingering(until:discarded:)``: the sending side is shut down and
    /// what the client still sends is read and dropped for a while) so that input the server did not read cannot
    /// turn into a reset that destroys the answer (a client that sent a 200 KB header would see "connection reset"
    /// instead of its 431). Once: a second call would write to the half-closed socket and cut the linger short.
    package func closeAfterWrites(context: ChannelHandlerContext) {
        let inputClosed = state.inputClosed
        guard state.beginClosing() else { return }
        let (_, uncork) = state.flushed()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).assumeIsolated().whenComplete { result in
            guard case .success = result, !inputClosed else { return context.close(promise: nil) }
            let shutDown = context.eventLoop.makePromise(of: Void.self)
            context.close(mode: .output, promise: shutDown)
            shutDown.futureResult.assumeIsolated().whenComplete { result in
                guard case .success = result, context.channel.isActive else { return context.close(promise: nil) }
                handler.value.state.startLingering(now: .now())
                handler.value.rescheduleCheck(context: context)
                context.read()
            }
        }
        if uncork { setCorkOption(0, context: context) }
    }

    package func flushIfNeeded(context: ChannelHandlerContext) {
        let (flush, uncork) = state.flushed()
        if flush { context.flush() }
        if uncork { setCorkOption(0, context: context) }
    }

    /// Holds back partial segments (`TCP_CORK`, one `setsockopt`) until the next flush: a response head written with
    /// `write` and its body sent with `sendfile` then leave as one segment, not two (which also cost the client a
    /// second wake-up), as nginx's `tcp_nopush` does.
    package func cork(context: ChannelHandlerContext) {
        if state.cork() { setCorkOption(1, context: context) }
    }

    private func setCorkOption(_ value: Int, context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(.tcpOption(NIOBSDSocket.Option(rawValue: TCP_CORK)), value: value)
    }
}
