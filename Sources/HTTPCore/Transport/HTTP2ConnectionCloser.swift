import NIOCore
import NIOHTTP2

/// Last in an HTTP/2 connection's pipeline, after NIO's HTTP/2 handler: closes the connection on an error that
/// handler reports — a protocol error or one of its defences (too many resets, CONTINUATION frames, buffered control
/// frames: it has sent its `GOAWAY`, and closing is the application's part). An error of one stream (NIO has reset
/// that stream) leaves the connection and its other streams alone. It also ends a connection whose client closed its
/// side.
package final class HTTP2ConnectionCloser: ChannelInboundHandler {
    package typealias InboundIn = Any

    /// A closer.
    package init() {}

    /// Streams open on the connection (NIO tells of each opened and closed).
    private var openStreams = 0
    /// Whether the client closed its sending side.
    private var inputClosed = false

    /// The client closed its sending side (the server lets sockets half-close, for HTTP/1.1's lingering close): it
    /// can open no stream and acknowledge nothing more (so not a graceful `GOAWAY` either, which waits for a PING's
    /// answer), so the connection is closed once the streams it has are answered. Without this the socket stayed
    /// open, with everything the connection held, until the idle timeout.
    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is NIOHTTP2StreamCreatedEvent {
            openStreams += 1
        } else if event is StreamClosedEvent {
            openStreams = max(0, openStreams - 1)
            if inputClosed && openStreams == 0 { return context.close(promise: nil) }
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            inputClosed = true
            if openStreams == 0 { return context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOHTTP2Errors.StreamError { return }
        SocketCloser.closeNow(context)
    }
}
