import NIOCore
import NIOHPACK
import NIOHTTP1
import NIOHTTP2

/// An HTTP/2 stream's one handler in front of its ``ConnectionHandler``, which reads and writes the same things on
/// every protocol. Inbound: the stream's `HEADERS` and `DATA` as an HTTP/1-shaped request (version 2.0; `:authority`
/// as `Host` when the client sent none; a body without declared length as chunked, as NIO's codec does; later
/// `HEADERS` as trailers). Outbound: the handler's response head, written as HTTP/1.1 text, parsed straight into the
/// `HEADERS` block (names lower-cased, the connection-specific fields HTTP/2 forbids dropped: `Connection`,
/// `Keep-Alive`, `Transfer-Encoding`, `Upgrade`, `Proxy-Connection`), the body as `DATA`, and the end of the stream
/// on the last frame: on `HEADERS` for a `HEAD`, a 204, a 304 or an empty body, on the `DATA` that completes
/// `Content-Length`, or at the handler's close for a body of no declared length (an event stream). Interim heads
/// (`100 Continue`) pass as heads. With the connection's ``HTTP2PriorityScheduler``, the request goes on when the
/// scheduler says, in order of the urgency its client gave it.
///
/// One handler instead of NIO's HTTP/2-to-HTTP/1 codec and a framer behind it: no `HTTPHeaders` made and converted
/// per response, one handler fewer per stream, no empty `DATA` frame to end each stream, and the fields whose values
/// differ from one response to the next (`Content-Length`, `ETag`, `Last-Modified`, `Content-Range`) kept out of
/// HPACK's dynamic table: inserting them evicted the constant fields, and every later field was looked up through a
/// full table (the encoder's search was a sixth of an HTTP/2 server's time).
package final class HTTP2StreamCodec: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTP2Frame.FramePayload
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = IOData
    package typealias OutboundOut = HTTP2Frame.FramePayload

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
    /// Whether the request's head was read (later `HEADERS` are trailers).
    private var readHead = false
    /// The end of the last response, written: what a later empty write (the handler's flush marker before a close)
    /// waits for, so that the stream is not closed before its last frames left.
    private var ended: EventLoopFuture<Void>?
    /// The connection's order of answering, if it has one.
    private let scheduler: HTTP2PriorityScheduler?
    /// The request's parts read while the scheduler holds them back (nil once let through).
    private var held: [HTTPServerRequestPart]?
    private var context: ChannelHandlerContext?

    /// The send deadline: a stream whose frames have not left for this long (its client holds its window, or the
    /// connection's, at zero: it reads nothing) is reset. Nil: none.
    private let sendTimeout: TimeAmount?
    /// Frames written that wait to leave (held by HTTP/2's flow control), and when one last left.
    private var unsent = 0
    private var lastSent = NIODeadline.uptimeNanoseconds(0)
    private var watch: Scheduled<Void>?

    /// A codec for one stream, whose request `scheduler` (if any) lets through in order of urgency, and which resets
    /// the stream when what it wrote takes nothing of `sendTimeout` (if any) to leave.
    package init(scheduler: HTTP2PriorityScheduler? = nil, sendTimeout: TimeAmount? = nil) {
        self.scheduler = scheduler
        self.sendTimeout = sendTimeout
    }

    package func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    package func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        held = nil
        watch?.cancel()
        watch = nil
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let headers):
            guard !readHead else { return pass(.end(HTTPHeaders(regularFieldsOf: headers.headers)), context: context) }
            readHead = true
            let head: HTTPRequestHead
            do {
                head = try Self.requestHead(headers.headers, endStream: headers.endStream)
            } catch {
                return context.fireErrorCaught(error)
            }
            isHead = head.method == .HEAD
            if let scheduler, scheduler.isReading {
                held = []
                let urgency = HTTP2Priority.urgency(of: headers.headers, priorityData: headers.priorityData)
                scheduler.hold(urgency: urgency) { [self] in release() }
            }
            pass(.head(head), context: context)
            if headers.endStream { pass(.end(nil), context: context) }
        case .data(let data):
            guard case .byteBuffer(let bytes) = data.data else { return }
            if bytes.readableBytes > 0 || !data.endStream { pass(.body(bytes), context: context) }
            if data.endStream { pass(.end(nil), context: context) }
        default:
            break
        }
    }

    /// Hands `part` on, or keeps it while the request is held back.
    private func pass(_ part: HTTPServerRequestPart, context: ChannelHandlerContext) {
        guard held == nil else { return held!.append(part) }
        context.fireChannelRead(wrapInboundOut(part))
    }

    /// The scheduler's turn for this stream: what was held goes on.
    private func release() {
        guard let parts = held else { return }
        held = nil
        guard let context else { return }
        for part in parts { context.fireChannelRead(wrapInboundOut(part)) }
        // What the handler wrote at once joins the connection's frames now, in the scheduler's order, rather than at
        // the streams' read-complete, which NIO delivers in the order the streams were opened (the connection itself
        // still flushes once, after the burst).
        context.flush()
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let bytes = unwrapOutboundIn(data)
        switch expecting {
        case .head:
            guard case .byteBuffer(var buffer) = bytes, buffer.readableBytes > 0 else { return afterEnd(promise) }
            guard let (headers, code, length) = Self.responseHeaders(&buffer) else {
                promise?.fail(HTTP2FramingError())
                return context.close(promise: nil)
            }
            if code < 200 {
                context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
                if buffer.readableBytes > 0 { return write(context: context, data: NIOAny(IOData.byteBuffer(buffer)), promise: promise) }
                promise?.succeed()
                return
            }
            let bodyless = isHead || code == 204 || code == 304 || length == 0
            if bodyless { return end(context: context, with: .headers(.init(headers: headers, endStream: true)), promise: promise) }
            context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
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
        end(context: context, with: .data(.init(data: .byteBuffer(ByteBuffer()), endStream: true)), promise: nil)
        context.flush()
        ended?.assumeIsolated().whenComplete { _ in context.close(mode: mode, promise: promise) }
    }

    private func writeBody(_ bytes: IOData, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        guard case .body(let remaining) = expecting else {
            return context.write(wrapOutboundOut(.data(.init(data: bytes))), promise: watched(promise, context: context))
        }
        let left = remaining - bytes.readableBytes
        guard left <= 0 else {
            expecting = .body(remaining: left)
            return context.write(wrapOutboundOut(.data(.init(data: bytes))), promise: watched(promise, context: context))
        }
        end(context: context, with: .data(.init(data: bytes, endStream: true)), promise: promise)
    }

    /// Writes `last`, the stream's last frame; `promise` and ``ended`` complete once it is written.
    private func end(context: ChannelHandlerContext, with last: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>?) {
        expecting = .nothing
        let written = context.eventLoop.makePromise(of: Void.self)
        ended = written.futureResult
        written.futureResult.cascade(to: promise)
        context.write(wrapOutboundOut(last), promise: watched(written, context: context))
    }

    /// `promise` (or one made here), counted among the frames waiting to leave until it completes.
    private func watched(_ promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) -> EventLoopPromise<Void>? {
        guard let sendTimeout else { return promise }
        let sent = promise ?? context.eventLoop.makePromise()
        unsent += 1
        let loop = context.eventLoop
        sent.futureResult.assumeIsolated().whenComplete { [self] _ in
            unsent -= 1
            lastSent = loop.now
            if unsent == 0 {
                watch?.cancel()
                watch = nil
            }
        }
        if watch == nil { watchSending(context: context, at: context.eventLoop.now + sendTimeout) }
        return sent
    }

    /// At `deadline`: resets the stream if nothing it wrote has left for the send timeout, else looks again later.
    private func watchSending(context: ChannelHandlerContext, at deadline: NIODeadline) {
        watch = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            watch = nil
            guard unsent > 0, let sendTimeout else { return }
            let due = lastSent + sendTimeout
            if due <= context.eventLoop.now { return context.close(promise: nil) }
            watchSending(context: context, at: due)
        }
    }

    /// Completes `promise` (of a write with nothing to frame) once the response's end is written.
    private func afterEnd(_ promise: EventLoopPromise<Void>?) {
        guard let ended else {
            promise?.succeed()
            return
        }
        ended.cascade(to: promise)
    }
}

/// The handler wrote something that is not a response head where one was due.
struct HTTP2FramingError: Error {}

/// A request's `HEADERS` lacked one of the pseudo-fields every request but `CONNECT` has (`:method`, `:scheme`,
/// `:path`), or it was a `CONNECT`, which this server does not tunnel.
struct HTTP2RequestError: Error {
    /// The pseudo-field missing.
    let missing: String
}
