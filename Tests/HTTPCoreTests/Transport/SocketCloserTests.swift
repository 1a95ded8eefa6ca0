import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import HTTPCore

/// Closing a connection under attack below its TLS handler, on an embedded channel where a handler stands in for
/// TLS's orderly shutdown (it holds every close that reaches it, as NIO's TLS handler holds it for `close_notify`).
@Suite struct SocketCloserTests {
    /// Holds the closes that reach it.
    private final class HeldClose: ChannelOutboundHandler {
        typealias OutboundIn = Any
        var held = 0
        func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) { held += 1 }
    }

    private func channel(withSocketCloser: Bool) throws -> (EmbeddedChannel, HeldClose) {
        let tls = HeldClose()
        let handlers: [any ChannelHandler] = (withSocketCloser ? [SocketCloser()] : []) + [tls, HTTP2ConnectionCloser()]
        return (try EmbeddedChannel.connected(handlers).0, tls)
    }

    @Test func aConnectionErrorClosesTheSocketBelowTLS() throws {
        let (channel, tls) = try channel(withSocketCloser: true)
        channel.pipeline.fireErrorCaught(NIOHTTP2Errors.excessiveOutboundFrameBuffering())
        #expect(!channel.isActive)
        #expect(tls.held == 0)
    }

    @Test func withoutOneTheCloseTakesTheUsualWay() throws {
        let (channel, tls) = try channel(withSocketCloser: false)
        channel.pipeline.fireErrorCaught(NIOHTTP2Errors.excessiveOutboundFrameBuffering())
        #expect(tls.held == 1)
        #expect(channel.isActive)
    }

    @Test func oneStreamsErrorLeavesTheConnectionOpen() throws {
        let (channel, tls) = try channel(withSocketCloser: true)
        channel.pipeline.fireErrorCaught(NIOHTTP2Errors.streamError(streamID: 1, baseError: NIOHTTP2Errors.excessiveOutboundFrameBuffering()))
        #expect(channel.isActive && tls.held == 0)
    }
}
