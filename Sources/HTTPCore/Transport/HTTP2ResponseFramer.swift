import NIOCore
import NIOHTTP1

/// Between an HTTP/2 stream's HTTP/1-shaped codec and the ``ConnectionHandler``: the handler writes the same bytes on
/// every protocol — a response head as HTTP/1.1 text, then its body as bytes or a file region — and this turns them
/// into the stream's parts: the head parsed into an `HTTPResponseHead` (without the connection-specific fields HTTP/2
/// forbids: `Connection`, `Keep-Alive`, `Transfer-Encoding`, `Upgrade`, `Proxy-Connection`), the body as `DATA`, and
/// the end of the stream once `Content-Length` bytes are written (at once for a `HEAD`, a 204 or a 304; at the
/// handler's close for a body of no declared length, an event stream). Interim heads (`100 Continue`) pass as heads.
///
/// One stream is one request: the method of its head is remembered to know whether a body follows.
package final class HTTP2ResponseFramer: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = IOData
    package typealias OutboundOut = HTTPServerResponsePart

    /// What the next bytes written are.
    private enum Expecting {
        /// A response head.
        case head
        /// This many body bytes, then the end of the stream.
        case body(remaining: Int)
        /// Body bytes until the handler closes the stream.
        case bodyUntilClose
        /// Nothing more (the stream ended).
        case nothing
    }

    private var expecting = Expecting.head
    private var isHead = false
    /// The end of the last response, written: what a later empty write (the handler's flush marker before a close)
    /// waits for, so that the stream is not closed before its last frames left.
    private var ended: EventLoopFuture<Void>?

    /// A framer for one stream.
    package init() {}

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { isHead = head.method == .HEAD }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes = unwrapOutboundIn(data)
        switch expecting {
        case .head:
            guard case .byteBuffer(var buffer) = bytes, buffer.readableBytes > 0 else { return afterEnd(promise) }
            guard let (head, length) = Self.parseHead(&buffer) else {
                promise?.fail(HTTP2FramingError())
                return context.close(promise: nil)
            }
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            if head.status.code < 200 {
                expecting = .head
                if buffer.readableBytes > 0 { return write(context: context, data: NIOAny(IOData.byteBuffer(buffer)), promise: promise) }
                promise?.succeed()
                return
            }
            let bodyless = isHead || head.status == .noContent || head.status == .notModified || length == 0
            if bodyless { return end(context: context, promise: promise) }
            expecting = length.map { .body(remaining: $0) } ?? .bodyUntilClose
            if buffer.readableBytes > 0 {
                writeBody(.byteBuffer(buffer), context: context, promise: promise)
            } else {
                promise?.succeed()
            }
        case .body, .bodyUntilClose:
            writeBody(bytes, context: context, promise: promise)
        case .nothing:
            afterEnd(promise)
        }
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard case .bodyUntilClose = expecting else { return context.close(mode: mode, promise: promise) }
        // The end of an event stream: the stream ends cleanly rather than being reset.
        end(context: context, promise: nil)
        context.flush()
        ended?.whenComplete { _ in context.close(mode: mode, promise: promise) }
    }

    private func writeBody(_ bytes: IOData, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard case .body(let remaining) = expecting else {
            return context.write(wrapOutboundOut(.body(bytes)), promise: promise)
        }
        let left = remaining - bytes.readableBytes
        guard left <= 0 else {
            expecting = .body(remaining: left)
            return context.write(wrapOutboundOut(.body(bytes)), promise: promise)
        }
        context.write(wrapOutboundOut(.body(bytes)), promise: nil)
        end(context: context, promise: promise)
    }

    /// Writes the end of the stream; `promise` and ``ended`` complete once it is written.
    private func end(context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        expecting = .nothing
        let written = context.eventLoop.makePromise(of: Void.self)
        ended = written.futureResult
        written.futureResult.cascade(to: promise)
        context.write(wrapOutboundOut(.end(nil)), promise: written)
    }

    /// Completes `promise` (of a write with nothing to frame) once the response's end is written.
    private func afterEnd(_ promise: EventLoopPromise<Void>?) {
        guard let ended else {
            promise?.succeed()
            return
        }
        ended.cascade(to: promise)
    }

    /// The HTTP/1.1 response head at the start of `buffer` (moved past it) and its `Content-Length`, if any; nil when
    /// the bytes are not a whole head.
    static func parseHead(_ buffer: inout ByteBuffer) -> (HTTPResponseHead, Int?)? {
        let view = buffer.readableBytesView
        guard let end = view.firstRange(of: [13, 10, 13, 10]) else { return nil }
        let text = String(decoding: view[..<end.lowerBound], as: UTF8.self)
        buffer.moveReaderIndex(forwardBy: end.upperBound - view.startIndex)
        var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)[...]
        guard let status = lines.popFirst()?.split(separator: " ", maxSplits: 2), status.count >= 2, let code = Int(status[1]) else {
            return nil
        }
        var headers = HTTPHeaders()
        var length: Int?
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon]
            let value = line[line.index(after: colon)...].drop { $0 == " " }
            switch name.lowercased() {
            case "connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection": continue
            case "content-length": length = Int(value)
            default: break
            }
            headers.add(name: String(name), value: String(value))
        }
        return (HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: code), headers: headers), length)
    }
}

/// The handler wrote something that is not a response head where one was due.
struct HTTP2FramingError: Error {}
