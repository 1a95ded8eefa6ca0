import NIOCore

extension ConnectionHandler {
    /// Stops answering and ends the connection once everything written so far has been sent, with a lingering close
    /// (``ConnectionState/Phase/lingering(until:discarded:)``: the sending side is shut down and what the client still
    /// sends is read and dropped for a while), so that input the server did not read cannot turn into a reset that
    /// destroys the answer (a client that sent a 200 KB header would see "connection reset" instead of its 431). Once:
    /// a second call would write to the half-closed socket and cut the linger short.
    package func closeAfterWrites(context: ChannelHandlerContext) {
        let inputClosed = state.inputClosed
        guard state.beginClosing() else { return }
        if isStream {
            // An HTTP/2 stream has no sending side to shut down nor input to drain: it is reset once what was written
            // has gone (nothing, if its last frame already ended it both ways).
            context.writeAndFlush(NIOAny(ByteBuffer())).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            return
        }
        let (_, uncork) = state.flushed()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.closeOutputAfterWrites(inputClosed: inputClosed) {
            handler.value.state.startLingering(now: .now())
            handler.value.scheduleCheck(context: context)
            context.read()
        }
        if uncork { context.setCork(false) }
    }

    func closeIfIdle(context: ChannelHandlerContext) {
        if state.shouldCloseWhenIdle { closeAfterWrites(context: context) }
    }

    package func flushIfNeeded(context: ChannelHandlerContext) {
        let (flush, uncork) = state.flushed()
        if flush { context.flush() }
        if uncork { context.setCork(false) }
    }
}
