import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP1
import NIOHTTP2
import Testing

@testable import HTTPCore

/// An HTTP/2 stream's codec on an embedded channel: frames in, the HTTP/1-shaped request out; the connection
/// handler's HTTP/1.1 bytes in, `HEADERS` and `DATA` out, the stream ended on the last frame.
@Suite struct HTTP2StreamCodecTests {
    private func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(HTTP2StreamCodec())
        return channel
    }

    private func request(_ fields: [(String, String)], endStream: Bool = true) -> HTTP2Frame.FramePayload {
        .headers(.init(headers: HPACKHeaders(fields), endStream: endStream))
    }

    private static let get = [(":method", "GET"), (":scheme", "https"), (":authority", "tiles.example"), (":path", "/images/a.dzi")]

    @Test func aRequestsHeadersBecomeAnHTTP2HeadWithTheAuthorityAsHost() throws {
        let channel = try channel()
        try channel.writeInbound(request(Self.get + [("accept", "*/*")]))
        guard case .head(let head) = try channel.readInbound(as: HTTPServerRequestPart.self) else { throw Failure("no head") }
        #expect(head.version == HTTPVersion(major: 2, minor: 0))
        #expect(head.method == .GET && head.uri == "/images/a.dzi")
        #expect(head.headers["host"] == ["tiles.example"] && head.headers["accept"] == ["*/*"])
        #expect(!head.headers.contains { $0.name.hasPrefix(":") })
        guard case .end(nil) = try channel.readInbound(as: HTTPServerRequestPart.self) else { throw Failure("no end") }
    }

    @Test func anUploadWithoutLengthIsChunkedAndItsDataAndTrailersFollow() throws {
        let channel = try channel()
        let post = [(":method", "POST"), (":scheme", "https"), (":authority", "t"), (":path", "/api/uploads")]
        try channel.writeInbound(request(post, endStream: false))
        guard case .head(let head) = try channel.readInbound(as: HTTPServerRequestPart.self) else { throw Failure("no head") }
        #expect(head.headers["transfer-encoding"] == ["chunked"])
        try channel.writeInbound(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(string: "abc")))))
        guard case .body(let body) = try channel.readInbound(as: HTTPServerRequestPart.self) else { throw Failure("no body") }
        #expect(String(buffer: body) == "abc")
        try channel.writeInbound(request([("x-sum", "1")]))
        guard case .end(let trailers) = try channel.readInbound(as: HTTPServerRequestPart.self) else { throw Failure("no end") }
        #expect(trailers?["x-sum"] == ["1"])
    }

    @Test func aRequestWithoutPathIsAnError() throws {
        let channel = try channel()
        #expect(throws: HTTP2RequestError.self) { try channel.writeInbound(request([(":method", "GET"), (":scheme", "https")])) }
    }

    @Test func aResponseBecomesHeadersAndDataEndingTheStream() throws {
        let channel = try channel()
        try channel.writeInbound(request(Self.get))
        let head = "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nConnection: keep-alive\r\nETag: \"1\"\r\nContent-Length: 5\r\n\r\n"
        try channel.writeOutbound(IOData.byteBuffer(ByteBuffer(string: head + "ab")))
        try channel.writeOutbound(IOData.byteBuffer(ByteBuffer(string: "cde")))
        guard case .headers(let headers) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else { throw Failure("no headers") }
        #expect(!headers.endStream)
        #expect(headers.headers.map(\.name) == [":status", "content-type", "etag", "content-length"])
        #expect(headers.headers.first(name: ":status") == "200")
        // A value that differs from one answer to the next stays out of HPACK's dynamic table.
        #expect(headers.headers.first { $0.name == "etag" }?.indexable == .nonIndexable)
        #expect(headers.headers.first { $0.name == "content-type" }?.indexable == .indexable)
        guard case .data(let first) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else { throw Failure("no data") }
        #expect(first.data.readableBytes == 2 && !first.endStream)
        guard case .data(let last) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else { throw Failure("no data") }
        #expect(last.data.readableBytes == 3 && last.endStream)
        #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
    }

    @Test func aHeadRequestsAnswerEndsOnItsHeaders() throws {
        let channel = try channel()
        try channel.writeInbound(request([(":method", "HEAD"), (":scheme", "https"), (":authority", "t"), (":path", "/x")]))
        try channel.writeOutbound(IOData.byteBuffer(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n")))
        guard case .headers(let headers) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else { throw Failure("no headers") }
        #expect(headers.endStream)
        #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
    }

    @Test func anInterimHeadPassesAndTheFinalOneFollows() throws {
        let channel = try channel()
        try channel.writeInbound(request(Self.get, endStream: false))
        try channel.writeOutbound(IOData.byteBuffer(ByteBuffer(string: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n")))
        guard case .headers(let interim) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else { throw Failure("no 100") }
        #expect(interim.headers.first(name: ":status") == "100" && !interim.endStream)
        guard case .headers(let final) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else { throw Failure("no 204") }
        #expect(final.headers.first(name: ":status") == "204" && final.endStream)
    }

    @Test func anEventStreamEndsCleanlyAtClose() throws {
        let channel = try channel()
        try channel.writeInbound(request(Self.get))
        try channel.writeOutbound(IOData.byteBuffer(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: 1\n\n")))
        _ = try channel.readOutbound(as: HTTP2Frame.FramePayload.self)
        guard case .data(let event) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else { throw Failure("no event") }
        #expect(!event.endStream)
        _ = channel.close()
        guard case .data(let end) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else { throw Failure("no end") }
        #expect(end.endStream && end.data.readableBytes == 0)
    }

    /// Holds every write (as HTTP/2's flow control holds the frames of a client that reads nothing) until let go.
    private final class HeldWrites: ChannelOutboundHandler {
        typealias OutboundIn = HTTP2Frame.FramePayload
        var promises: [EventLoopPromise<Void>?] = []
        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) { promises.append(promise) }
        func releaseAll() {
            for promise in promises { promise?.succeed() }
            promises = []
        }
    }

    private func heldChannel() throws -> (EmbeddedChannel, EmbeddedEventLoop, HeldWrites) {
        let held = HeldWrites()
        let (channel, loop) = try EmbeddedChannel.connected([held, HTTP2StreamCodec(sendTimeout: .seconds(10))])
        try channel.writeInbound(request(Self.get))
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabc"
        channel.write(IOData.byteBuffer(ByteBuffer(string: head)), promise: nil)
        return (channel, loop, held)
    }

    @Test func aStreamWhoseFramesDoNotLeaveForTheSendTimeoutIsReset() throws {
        let (channel, loop, _) = try heldChannel()
        loop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test func aStreamWhoseFramesLeaveIsKept() throws {
        let (channel, loop, held) = try heldChannel()
        loop.advanceTime(by: .seconds(9))
        held.releaseAll()
        loop.advanceTime(by: .seconds(30))
        #expect(channel.isActive)
    }

    /// A failed expectation that ends a test.
    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
