import NIOCore

/// The first handler of a connection: it only moves bytes. Each read from the socket is announced to the
/// connection's state machine (``ConnectionState/bytesArrived(_:now:)``), which says whether the bytes go on to the
/// decoders, are dropped (a lingering close) or end the connection; the half-close of the client's side is passed
/// on likewise. Time is the state machine's: the gate keeps none.
package final class InboundGate: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    private let connection: ConnectionHandler

    /// A gate in front of `connection`'s decoders (on the same channel and event loop).
    package init(connection: ConnectionHandler) {
        self.connection = connection
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch connection.state.bytesArrived(unwrapInboundIn(data).readableBytes, now: .now()) {
        case .decode:
            context.fireChannelRead(data)
        case .discard:
            break
        case .close:
            context.close(promise: nil)
        }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        if connection.state.isLingering {
            // The handlers behind this one hold their reads while closing: a linger asks for more here.
            context.read()
        } else {
            context.fireChannelReadComplete()
        }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if connection.state.isLingering, let event = event as? ChannelEvent, event == .inputClosed {
            // The client finished sending: the linger is over.
            return context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if connection.state.isLingering { return context.close(promise: nil) }
        context.fireErrorCaught(error)
    }
}
