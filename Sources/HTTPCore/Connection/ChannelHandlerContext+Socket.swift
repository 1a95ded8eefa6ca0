import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// What a connection does to its socket beyond reads and writes: cork, a half-close after the last write, a reset.
extension ChannelHandlerContext {
    /// Sets `TCP_CORK`: while on, partial segments are held back until it comes off, so that a head written with
    /// `write` and a body sent with `sendfile` leave as one segment (nginx's `tcp_nopush`).
    func setCork(_ on: Bool) {
        try? channel.syncOptions?.setOption(.tcpOption(NIOBSDSocket.Option(rawValue: TCP_CORK)), value: on ? 1 : 0)
    }

    /// Once everything written so far is sent, shuts the sending side down and calls `halfClosed` (the connection then
    /// reads and drops what the client still sends); closes outright instead when a write failed, the client's side is
    /// already closed (`inputClosed`) or the socket went.
    func closeOutputAfterWrites(inputClosed: Bool, halfClosed: @escaping () -> Void) {
        let context = self
        writeAndFlush(NIOAny(ByteBuffer())).assumeIsolated().whenComplete { result in
            guard case .success = result, !inputClosed else { return context.close(promise: nil) }
            let shutDown = context.eventLoop.makePromise(of: Void.self)
            context.close(mode: .output, promise: shutDown)
            shutDown.futureResult.assumeIsolated().whenComplete { result in
                guard case .success = result, context.channel.isActive else { return context.close(promise: nil) }
                halfClosed()
            }
        }
    }

    /// Closes with a reset (`SO_LINGER` 0) for a client that takes none of its answer: nothing could overtake the stuck
    /// bytes (not even a 408), and a graceful close would leave them in an orphaned socket for minutes; the reset frees
    /// them at once (nginx's `reset_timedout_connection`), and the client learns the connection ended.
    func reset() {
        guard let socket = channel as? any SocketOptionProvider else { return close(promise: nil) }
        let context = self
        socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).assumeIsolated().whenComplete { _ in context.close(promise: nil) }
    }
}
