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
        ended?.assumeIsolated().whenComplete { _ in context.close(mode: mode, promise: promise) }
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
    /// the bytes are not a whole head. One pass over the bytes (the head is the server's own, so well formed).
    ///
    /// - Complexity: O(head length).
    static func parseHead(_ buffer: inout ByteBuffer) -> (HTTPResponseHead, Int?)? {
        let parsed = buffer.withUnsafeReadableBytes { bytes -> (HTTPResponseHead, Int?, Int)? in
            // The status line: `HTTP/1.1 200 OK`.
            guard let lineEnd = lineEnd(in: bytes, from: 0), lineEnd >= 12 else { return nil }
            var code = 0
            for index in 9..<12 {
                let digit = Int(bytes[index]) - 48
                guard (0...9).contains(digit) else { return nil }
                code = code * 10 + digit
            }
            var headers = HTTPHeaders()
            var length: Int?
            var start = lineEnd + 2
            while true {
                guard let end = Self.lineEnd(in: bytes, from: start) else { return nil }
                if end == start {
                    return (HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: code), headers: headers), length, end + 2)
                }
                var colon = start
                while colon < end && bytes[colon] != UInt8(ascii: ":") { colon += 1 }
                guard colon < end else { return nil }
                var valueStart = colon + 1
                while valueStart < end && bytes[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
                let name = UnsafeRawBufferPointer(rebasing: bytes[start..<colon])
                let value = UnsafeRawBufferPointer(rebasing: bytes[valueStart..<end])
                start = end + 2
                if Self.isConnectionSpecific(name) { continue }
                if SimpleRequest.equalsIgnoringCase(name, "content-length") { length = Int(String(decoding: value, as: UTF8.self)) }
                headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
            }
        }
        guard let (head, length, consumed) = parsed else { return nil }
        buffer.moveReaderIndex(forwardBy: consumed)
        return (head, length)
    }

    /// The index of the next `\r\n` at or after `from`; nil when there is none.
    private static func lineEnd(in bytes: UnsafeRawBufferPointer, from: Int) -> Int? {
        var index = from
        while index + 1 < bytes.count {
            if bytes[index] == 13 && bytes[index + 1] == 10 { return index }
            index += 1
        }
        return nil
    }

    /// Whether `name` is a field HTTP/2 forbids (RFC 9113 §8.2.2).
    private static func isConnectionSpecific(_ name: UnsafeRawBufferPointer) -> Bool {
        ["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection"].contains { SimpleRequest.equalsIgnoringCase(name, $0) }
    }
}

/// The handler wrote something that is not a response head where one was due.
struct HTTP2FramingError: Error {}
