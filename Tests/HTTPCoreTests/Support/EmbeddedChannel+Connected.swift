import NIOCore
import NIOEmbedded

extension EmbeddedChannel {
    /// A channel with `handlers` in its pipeline, in order from the socket's side, connected (so active), on a loop of
    /// its own whose time the test advances.
    static func connected(_ handlers: [any ChannelHandler]) throws -> (EmbeddedChannel, EmbeddedEventLoop) {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(loop: loop)
        try channel.pipeline.syncOperations.addHandlers(handlers)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return (channel, loop)
    }
}
