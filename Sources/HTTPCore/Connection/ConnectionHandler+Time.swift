import NIOCore

extension ConnectionHandler {
    /// Schedules the connection's one timer at its state's next deadline (which a transition may have brought closer),
    /// or a tick later for the send watch.
    package func scheduleCheck(context: ChannelHandlerContext) {
        timer?.cancel()
        let at = state.nextCheck(now: .now())
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: at) { [self] in check(context: context) }
    }

    /// Acts on what the state says is due: nothing (look again at its next deadline), a close, a 408 then close, or a
    /// reset for a client that takes none of its answer.
    private func check(context: ChannelHandlerContext) {
        timer = nil
        guard context.channel.isActive else { return }
        // A stream has no buffer of its own to ask about: unwritable (its window spent) counts as bytes waiting.
        let buffered =
            isStream ? (context.channel.isWritable ? 0 : 1) : (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        switch state.expiry(now: .now(), buffered: buffered) {
        case .none:
            scheduleCheck(context: context)
        case .close:
            context.close(promise: nil)
        case .requestTimeout:
            // Answered, counted and logged like any refusal (with CORS when the head had arrived), then closed.
            let exchange = state.receivingHead.map { Exchange(head: $0) } ?? Exchange(malformedAt: .now())
            write(.error(.requestTimeout), for: exchange, closing: true, context: context)
            scheduleCheck(context: context)
        case .reset:
            services.connections.countSendTimeout()
            context.reset()
        }
    }
}
