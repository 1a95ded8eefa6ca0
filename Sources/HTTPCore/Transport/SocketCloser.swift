import NIOCore

/// First in a TLS connection's pipeline, before the TLS handler: a place to close the socket from without TLS's
/// orderly shutdown. A close from further up passes the TLS handler, which sends `close_notify` and keeps the
/// connection — still reading, decrypting into its buffer whatever the peer sends — until the peer answers or five
/// seconds pass; for a connection closed because its client attacks it (a flood NIO's HTTP/2 handler detected) or
/// takes nothing (its send deadline passed) that is memory held for nothing: several hundred megabytes under a flood
/// of new connections. ``closeNow(_:)`` closes at once from here, or, without one in the pipeline, the usual way.
package final class SocketCloser: ChannelOutboundHandler, RemovableChannelHandler {
    package typealias OutboundIn = Any

    /// A closer.
    package init() {}

    /// Closes `context`'s channel at once, below any TLS handler when the pipeline has a ``SocketCloser``.
    package static func closeNow(_ context: ChannelHandlerContext) {
        guard let socket = try? context.pipeline.syncOperations.context(handlerType: SocketCloser.self) else {
            return context.close(promise: nil)
        }
        socket.close(promise: nil)
    }
}
