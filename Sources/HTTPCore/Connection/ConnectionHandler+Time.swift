import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

extension ConnectionHandler {
    /// Schedules the connection's one timer at its state's next deadline, or a tick later for the send watch.
    package func scheduleCheck(context: ChannelHandlerContext) {
        let at = state.nextCheck(now: .now())
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: at) { [self] in
            check(context: context)
        }
    }

    /// Moves the timer to the state's next deadline, which a transition brought closer.
    package func rescheduleCheck(context: ChannelHandlerContext) {
        timer?.cancel()
        scheduleCheck(context: context)
    }

    /// Acts on what the state says is due: nothing (look again at its next deadline), a close, a 408 then close, or a
    /// reset for a client that takes none of its answer.
    private func check(context: ChannelHandlerContext) {
        timer = nil
        guard context.channel.isActive else { return }
        let buffered = (try? context.channel.syncOptions?.getOption(.bufferedWritableBytes)) ?? 0
        switch state.expiry(now: .now(), buffered: buffered) {
        case .none:
            scheduleCheck(context: context)
        case .close:
            context.close(promise: nil)
        case .requestTimeout:
            // Answered, counted and logged like any refusal (with CORS when the head had arrived), then closed.
            let exchange = state.receivingHead.map { Exchange(head: $0) } ?? Exchange(malformedAt: .now())
            let error = RequestError(status: .requestTimeout, message: "the request did not arrive in time")
            writeError(error, exchange: exchange, forceClose: true, context: context)
            scheduleCheck(context: context)
        case .reset:
            // Nothing could overtake the stuck bytes (not even a 408). A graceful close would leave them in the kernel,
            // in an orphaned socket, for minutes; SO_LINGER 0 makes the close a reset that frees them at once (nginx's
            // reset_timedout_connection), and the client learns the connection ended.
            services.connections.countSendTimeout()
            guard let socket = context.channel as? any SocketOptionProvider else { return context.close(promise: nil) }
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
        }
    }
}
