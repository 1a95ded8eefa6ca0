import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// One connection's HTTP/1.1 lifecycle, after NIO's request decoder: takes requests (from ``SimpleRequestDecoder``
/// as ``SimpleRequestEvent``s, or as NIO's request parts), has its ``Responder`` answer each with a ``Response``, and
/// writes every response itself (``write(_:for:context:)``: settled, then encoded) — in request order, with keep-alive
/// and close, and `TCP_CORK` around files sent with `sendfile`. Everything it knows about the connection, deadlines
/// included, is its ``ConnectionState``; its one timer asks that state what is due, and ``InboundGate`` in front of
/// the decoders tells it when bytes arrive.
///
/// Pipelining: while a response is awaited (a tile miss on a file thread, a viewer file, a render), or while the
/// socket's send queue is over its high-water mark (a client not reading its answers), later requests queue and reads
/// from the socket are held back (backpressure); when the answer is written or the queue drains, the requests are
/// answered in order.
/// Malformed requests get 400 (431 for oversized heads) and the connection is closed. On
/// `ChannelShouldQuiesceEvent` (shutdown) the requests received are answered, the last with `Connection: close`.
package final class ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    package let services: ConnectionServices
    package let date: DateHeader
    /// The event loop's slot in the metrics.
    package let metricsShard: Int
    /// The event loop's access log, if one is written.
    package let accessLog: AccessLog?
    /// The client's address as the access log writes it, found once per connection.
    private var client: String?
    /// Makes the connection's responder, given where its later answers go.
    private let makeResponder: (@escaping ResponseDelivery) -> any Responder
    /// Answers requests; made when the handler joins its channel.
    package private(set) var responder: (any Responder)?
    /// Where later answers are delivered (on the event loop); made with the responder.
    package private(set) var deliver: ResponseDelivery?
    /// Reused for response heads: written, sent, and (once the socket has taken it) written over again.
    package var headScratch = ByteBuffer()
    package var context: ChannelHandlerContext?
    /// The connection's state: its phase and deadlines, queue, reads, output (changed only through its transitions).
    package var state: ConnectionState
    /// The connection's one timer, at the state's next deadline or tick (see `ConnectionHandler+Time.swift`).
    package var timer: Scheduled<Void>?
    /// The request body streaming to its sink (an upload), if any, and its route (see `ConnectionHandler+Upload.swift`).
    package var upload: (any RequestBodySink)?
    package var uploadRoute = RouteLabel.invalid
    /// The job event stream being written, if any.
    package var events: EventStream?

    /// Creates the handler of one connection, with `limits` for its states; `date`, `metricsShard` and `accessLog`
    /// belong to the connection's event loop; `makeResponder` is called once, when the handler joins its channel.
    package init(
        services: ConnectionServices, date: DateHeader, metricsShard: Int, limits: ConnectionLimits, accessLog: AccessLog? = nil,
        makeResponder: @escaping (_ deliver: @escaping ResponseDelivery) -> any Responder
    ) {
        self.accessLog = accessLog
        self.services = services
        self.date = date
        self.metricsShard = metricsShard
        self.makeResponder = makeResponder
        self.state = ConnectionState(limits: limits, now: .now())
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        headScratch = context.channel.allocator.buffer(capacity: 512)
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        let deliver: ResponseDelivery = { response in
            loop.execute { handler.value.responseArrived(response) }
        }
        self.deliver = deliver
        responder = makeResponder(deliver)
        if context.channel.isActive { scheduleCheck(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        if timer == nil { scheduleCheck(context: context) }
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        // The client has gone: work for an answer it still waits for is wasted, and its answer has nowhere to go.
        state.awaited?.work?.cancel()
        upload?.abort(upload.map { "the client went away after \($0.received) bytes; nothing was stored" } ?? "")
        upload = nil
        events?.stop()
        events = nil
        state.closed()
        context.fireChannelInactive()
    }

    /// Bytes arrived from the socket (``InboundGate``): what to do with them.
    package func bytesArrived(_ count: Int) -> ConnectionState.Arrival {
        state.bytesArrived(count, now: .now())
    }

    /// Whether the connection is in its lingering close (reading and dropping what the client still sends).
    package var isLingering: Bool {
        if case .lingering = state.phase { return true }
        return false
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        accept(.part(unwrapInboundIn(data)), context: context)
    }

    private func accept(_ inbound: ConnectionState.Inbound, context: ChannelHandlerContext) {
        guard !state.isClosing else { return }
        if state.mustQueue {
            state.enqueue(inbound)
        } else {
            process(inbound, context: context)
        }
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    package func read(context: ChannelHandlerContext) {
        if state.askRead() {
            context.read()
        }
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        let writable = context.channel.isWritable
        state.writabilityChanged(writable: writable)
        if writable {
            // This can come from inside a flush of this handler's own: answer what waited on the loop's next turn.
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.execute { handler.value.resumeIfAttached() }
        }
        context.fireChannelWritabilityChanged()
    }

    private func resumeIfAttached() {
        guard let context else { return }
        resume(context: context)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let upload {
            let ended = (error as? HTTPParserError) == .invalidEOFState
            upload.abort(
                ended
                    ? "the client went away after \(upload.received) bytes; nothing was stored"
                    : "the upload's body was malformed (\(error)); nothing was stored")
        }
        upload = nil
        guard let parserError = error as? HTTPParserError else {
            // I/O errors (a reset connection): nothing to answer.
            context.close(promise: nil)
            return
        }
        let requestError =
            parserError == .headerOverflow
            ? RequestError(status: .headersTooLarge, message: "the request head is larger than \(services.maxHeadBytes) bytes")
            : RequestError.badRequest("malformed request (\(parserError))")
        if !state.decodingFailed(requestError) && !state.isClosing {
            answerMalformed(requestError, context: context)
        }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let simple = event as? SimpleRequestEvent {
            accept(.simple(simple.request), context: context)
        } else if event is ChannelShouldQuiesceEvent {
            state.quiesce()
            closeIfIdle(context: context)
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            if let upload {
                // The client stopped sending inside an upload's body: it can never be completed.
                upload.abort("the client went away after \(upload.received) bytes; nothing was stored")
                self.upload = nil
                return context.close(promise: nil)
            }
            state.closeInput()
            if !abandonWork(context: context) {
                closeIfIdle(context: context)
            }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Handles a simple request (answers it) or a request part (remembers heads, answers at `.end`).
    private func process(_ inbound: ConnectionState.Inbound, context: ChannelHandlerContext) {
        let part: HTTPServerRequestPart
        switch inbound {
        case .simple(let request):
            state.requestComplete()
            var exchange = Exchange(request)
            let response = responder!.respond(to: request, exchange: &exchange)
            return write(response, for: exchange, context: context)
        case .part(let received):
            part = received
        }
        switch part {
        case .head(let head):
            receive(head, context: context)
        case .body(let body):
            if let upload { return receiveUploadBody(body, upload: upload, context: context) }
            // Bodies of GET, HEAD and OPTIONS mean nothing here: read and dropped, up to the limit.
            if state.receiveBody(count: body.readableBytes) > services.admission.maxBodyBytes {
                refuseBody(context: context)
            }
        case .end:
            guard let head = state.receiveEnd() else { return }
            var exchange = Exchange(head: head)
            if let upload { return endUpload(upload, exchange: exchange, context: context) }
            let response = responder!.respond(to: head, exchange: &exchange, channel: context.channel)
            write(response, for: exchange, context: context)
        }
    }

    /// Takes a request head from NIO's decoder: refuses at once (and closes) what ``RequestAdmission`` refuses, or a
    /// method its resource does not take; else waits for the request's end, its body (if any) timed by the head
    /// timeout.
    private func receive(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        var exchange = Exchange(head: head)
        switch services.admission.decide(head) {
        case .refuse(let error):
            // Answered at once, closing, rather than wait for (and time) a body nobody wants.
            state.requestComplete()
            exchange.route = responder!.label(head)
            writeError(error, exchange: exchange, forceClose: true, context: context)
        case .refuseMethod:
            state.requestComplete()
            refuseMethod(head, exchange: exchange, context: context)
        case .upload(let sendContinue):
            beginUpload(head, exchange: exchange, sendContinue: sendContinue, context: context)
        case .proceed(let bodyFollows, let sendContinue):
            guard responder!.allowedMethods(uri: head.uri).contains(head.method) else {
                state.requestComplete()
                return refuseMethod(head, exchange: exchange, context: context)
            }
            if sendContinue {
                // Every earlier answer has been written (requests are processed in order), so the interim answer
                // comes in its place: the client may send its body now instead of waiting for its own timeout.
                context.writeAndFlush(wrapOutboundOut(services.blocks.continue), promise: nil)
            }
            state.receiveHead(head, bodyFollows: bodyFollows, now: .now())
        }
    }

    /// Refuses a request whose method its resource does not take: 405 with `Allow` (what the resource takes), closing
    /// the connection (its body is never read).
    private func refuseMethod(_ head: HTTPRequestHead, exchange: Exchange, context: ChannelHandlerContext) {
        var exchange = exchange
        exchange.route = responder!.label(head)
        let allowed = responder!.allowedMethods(uri: head.uri)
        write(.methodNotAllowed(head.method, allowed: allowed), for: exchange, context: context)
    }

    /// 413 for a body that streamed past the limit, then close (without reading the rest; the lingering close discards
    /// it).
    private func refuseBody(context: ChannelHandlerContext) {
        guard !state.isClosing else { return }
        let error = RequestAdmission.bodyTooLarge(limit: services.admission.maxBodyBytes)
        if state.receiveEnd() == nil { state.requestComplete() }
        writeError(error, exchange: Exchange(malformedAt: .now()), forceClose: true, context: context)
    }

    /// Writes the awaited response once it has arrived (if the connection still waits for it), then answers what
    /// queued up.
    private func responseArrived(_ response: Response) {
        guard let context, let exchange = state.responseArrived() else { return response.discard() }
        write(response, for: exchange, context: context)
        resume(context: context)
    }

    /// Answers the queued requests once no response is awaited, then resumes reading.
    package func resume(context: ChannelHandlerContext) {
        while let inbound = state.nextQueued() {
            process(inbound, context: context)
        }
        if let error = state.takeDeferredError() {
            answerMalformed(error, context: context)
        }
        flushIfNeeded(context: context)
        guard state.mayProceed else { return }
        closeIfIdle(context: context)
        if state.releaseHeldRead() {
            context.read()
        }
    }

    /// Starts waiting for a ``Response/later`` answer to `exchange` (none when it is work for a client that has
    /// already closed its side: see ``abandonWork(context:)``).
    package func awaitResponse(for exchange: Exchange, context: ChannelHandlerContext) {
        state.awaitResponse(for: exchange)
        abandonWork(context: context)
    }

    /// After a response of `bytes` body bytes: the one place a finished exchange is observed — counted in the metrics
    /// and, with an access log, logged — then the connection closes (once written) if the response said so, else it
    /// waits for the next request.
    package func finish(_ exchange: Exchange, status: HTTPStatus, bytes: Int, close: Bool, context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        let elapsed = now - exchange.started
        services.counter.record(route: exchange.route, status: status, nanoseconds: elapsed.nanoseconds, shard: metricsShard)
        if let accessLog {
            accessLog.record(exchange, status: status, bytes: bytes, microseconds: elapsed.nanoseconds / 1000, client: clientAddress(context))
        }
        if close {
            closeAfterWrites(context: context)
        } else {
            state.answered(now: now)
        }
    }

    /// The client's IP address (`-` when unknown), looked up on the first access-log line.
    private func clientAddress(_ context: ChannelHandlerContext) -> String {
        if let client { return client }
        let address = context.channel.remoteAddress?.ipAddress ?? "-"
        client = address
        return address
    }

    /// Whether the response being written must close the connection.
    package func mustClose(_ exchange: Exchange) -> Bool {
        state.mustClose(exchange)
    }

    private func closeIfIdle(context: ChannelHandlerContext) {
        guard state.shouldCloseWhenIdle else { return }
        closeAfterWrites(context: context)
    }
}
