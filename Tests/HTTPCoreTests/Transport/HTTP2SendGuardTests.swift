import NIOCore
import NIOEmbedded
import Testing

@testable import HTTPCore

/// The HTTP/2 connection's guard on an embedded channel (its writability set by hand, its time advanced by hand).
@Suite struct HTTP2SendGuardTests {
    /// Counts the reads that pass towards the socket.
    private final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    private func channel() throws -> (EmbeddedChannel, EmbeddedEventLoop, ReadCounter) {
        let counter = ReadCounter()
        let (channel, loop) = try EmbeddedChannel.connected([counter, HTTP2SendGuard(sendTimeout: .seconds(10))])
        return (channel, loop, counter)
    }

    private func setWritable(_ writable: Bool, _ channel: EmbeddedChannel) {
        channel.isWritable = writable
        channel.pipeline.fireChannelWritabilityChanged()
    }

    @Test func noReadingWhileTheSendBufferIsFullThenTheHeldReadGoesOn() throws {
        let (channel, _, counter) = try channel()
        channel.read()
        #expect(counter.reads == 1)
        setWritable(false, channel)
        channel.read()
        channel.read()
        #expect(counter.reads == 1)
        setWritable(true, channel)
        #expect(counter.reads == 2)
        #expect(channel.isActive)
    }

    @Test func aSendBufferFullForTheSendTimeoutClosesTheConnection() throws {
        let (channel, loop, _) = try channel()
        setWritable(false, channel)
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test func aClientThatTakesItsAnswersInTimeIsKept() throws {
        let (channel, loop, _) = try channel()
        for _ in 0..<5 {
            setWritable(false, channel)
            loop.advanceTime(by: .seconds(8))
            setWritable(true, channel)
            loop.advanceTime(by: .seconds(1))
        }
        #expect(channel.isActive)
        _ = try channel.finish()
    }
}
