import NIOCore

/// In front of NIO's HTTP/2 handler: the connection's own send deadline. While the bytes queued for the socket are
/// over their high-water mark the connection stops reading (what it would read could only queue more answers), and
/// when they stay over it for the send timeout (the client took too little of them in that time) the connection is
/// closed, as an HTTP/1.1 connection whose client does not read is. Streams keep their own deadlines.
package final class HTTP2SendGuard: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    private let sendTimeout: TimeAmount
    private var heldRead = false
    private var deadline: Scheduled<Void>?

    /// A guard closing the connection after `sendTimeout` with its send buffer full.
    package init(sendTimeout: TimeAmount) { self.sendTimeout = sendTimeout }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive && !context.channel.isWritable { startDeadline(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    package func read(context: ChannelHandlerContext) {
        guard context.channel.isWritable else {
            heldRead = true
            return
        }
        context.read()
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            deadline?.cancel()
            deadline = nil
            if heldRead {
                heldRead = false
                context.read()
            }
        } else {
            startDeadline(context: context)
        }
        context.fireChannelWritabilityChanged()
    }

    private func startDeadline(context: ChannelHandlerContext) {
        guard deadline == nil else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: sendTimeout) { SocketCloser.closeNow(context) }
    }
}
