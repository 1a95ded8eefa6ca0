import NIOCore
import NIOHTTP2

/// Last in an HTTP/2 connection's pipeline, after NIO's HTTP/2 handler: closes the connection on an error that
/// handler reports — a protocol error or one of its defences (too many resets, CONTINUATION frames, buffered control
/// frames: it has sent its `GOAWAY`, and closing is the application's part). An error of one stream (NIO has reset
/// that stream) leaves the connection and its other streams alone.
package final class HTTP2ConnectionCloser: ChannelInboundHandler {
    package typealias InboundIn = Any

    /// A closer.
    package init() {}

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is NIOHTTP2Errors.StreamError { return }
        context.close(promise: nil)
    }
}
