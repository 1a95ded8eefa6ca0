import NIOCore
import NIOHTTP1

/// One connection's HTTP/1.1 lifecycle after the decoders: it moves requests to the stages and answers back to the
/// socket, and keeps time. Each request passes admission (``RequestAdmission``), its ``Responder`` (route, authorise,
/// handle), settle (``Response/settled(for:closing:blocks:)``), encode (``ResponseEncoder``) and observe
/// (``ExchangeObserver``) — refusals, 408s, uploads and event streams alike — in request order, with keep-alive and
/// close, and `TCP_CORK` around files sent with `sendfile`. What it knows of the connection, deadlines included, is its
/// ``ConnectionState``; its one timer asks that state what is due, and ``InboundGate`` tells it when bytes arrive.
///
/// Pipelining: while an answer is awaited (a read on a file thread, a render) or the socket's send queue is over its
/// high-water mark, later requests queue and reads are held back; they are answered in order once it is written or
/// the queue drains. On `ChannelShouldQuiesceEvent` (shutdown) what was received is answered, the last with
/// `Connection: close`.
package final class ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    let services: ConnectionServices
    let date: DateHeader
    let encoder: ResponseEncoder
    let observer: ExchangeObserver
    private let makeResponder: (@escaping ResponseDelivery) -> any Responder
    /// Answers requests (made when the handler joins its channel), and where its later answers are delivered.
    private(set) var responder: (any Responder)?
    private(set) var deliver: ResponseDelivery?
    /// Reused for response heads: written, sent, and (once the socket has taken it) written over again.
    var headScratch = ByteBuffer()
    var context: ChannelHandlerContext?
    var state: ConnectionState
    /// The connection's one timer, at the state's next deadline or tick (see `ConnectionHandler+Time.swift`).
    var timer: Scheduled<Void>?
    /// The request body streaming to its sink (an upload) and its route (see `ConnectionHandler+Upload.swift`).
    var upload: (any RequestBodySink)?
    var uploadRoute = RouteLabel.invalid
    /// The event stream being written, if any.
    var events: EventStream?

    /// The handler of one connection, with `limits` for its states; `date`, `metricsShard` and `accessLog` are the
    /// connection's event loop's; `makeResponder` is called once, when the handler joins its channel.
    package init(
        services: ConnectionServices, date: DateHeader, metricsShard: Int, limits: ConnectionLimits, accessLog: AccessLog? = nil,
        makeResponder: @escaping (_ deliver: @escaping ResponseDelivery) -> any Responder
    ) {
        self.services = services
        self.date = date
        self.encoder = ResponseEncoder(blocks: services.blocks)
        self.observer = ExchangeObserver(counter: services.counter, shard: metricsShard, accessLog: accessLog)
        self.makeResponder = makeResponder
        self.state = ConnectionState(limits: limits, now: .now())
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        headScratch = context.channel.allocator.buffer(capacity: 512)
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        let deliver: ResponseDelivery = { response in loop.execute { handler.value.responseArrived(response) } }
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
        abortUpload(ended: true)
        events?.stop()
        events = nil
        state.closed()
        context.fireChannelInactive()
    }

    /// Bytes arrived from the socket (``InboundGate``): what to do with them.
    func bytesArrived(_ count: Int) -> ConnectionState.Arrival {
        state.bytesArrived(count, now: .now())
    }

    /// Whether the connection is in its lingering close (reading and dropping what the client still sends).
    var isLingering: Bool {
        if case .lingering = state.phase { return true }
        return false
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        accept(.part(unwrapInboundIn(data)), context: context)
    }

    private func accept(_ inbound: ConnectionState.Inbound, context: ChannelHandlerContext) {
        guard !state.isClosing else { return }
        if state.mustQueue { return state.enqueue(inbound) }
        process(inbound, context: context)
    }

    package func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    package func read(context: ChannelHandlerContext) {
        if state.askRead() { context.read() }
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        state.writabilityChanged(writable: context.channel.isWritable)
        if context.channel.isWritable {
            // This can come from inside a flush of this handler's own: answer what waited on the loop's next turn.
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            context.eventLoop.execute { if let context = handler.value.context { handler.value.resume(context: context) } }
        }
        context.fireChannelWritabilityChanged()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        abortUpload(ended: (error as? HTTPParserError) == .invalidEOFState, error: error)
        // I/O errors (a reset connection): nothing to answer.
        guard let parserError = error as? HTTPParserError else { return context.close(promise: nil) }
        let refusal = RequestAdmission.refusal(for: parserError, maxHeadBytes: services.maxHeadBytes)
        if !state.decodingFailed(refusal) && !state.isClosing { answerMalformed(refusal, context: context) }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let simple = event as? SimpleRequestEvent {
            accept(.simple(simple.request), context: context)
        } else if event is ChannelShouldQuiesceEvent {
            state.quiesce()
            closeIfIdle(context: context)
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            // The client stopped sending inside an upload's body: it can never be completed.
            if upload != nil {
                abortUpload(ended: true)
                return context.close(promise: nil)
            }
            state.closeInput()
            if !abandonWork(context: context) { closeIfIdle(context: context) }
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Answers a simple request, or takes a request part: a head is admitted, a body kept or dropped, an end answered.
    private func process(_ inbound: ConnectionState.Inbound, context: ChannelHandlerContext) {
        switch inbound {
        case .simple(let request):
            state.requestComplete()
            var exchange = Exchange(request)
            write(responder!.respond(to: request, exchange: &exchange), for: exchange, context: context)
        case .part(.head(let head)):
            admit(head, context: context)
        case .part(.body(let body)):
            if let upload { return receiveUploadBody(body, upload: upload, context: context) }
            // Bodies of GET, HEAD and OPTIONS mean nothing here: read and dropped, up to the limit.
            if state.receiveBody(count: body.readableBytes) > services.admission.maxBodyBytes, !state.isClosing {
                if state.receiveEnd() == nil { state.requestComplete() }
                answerMalformed(RequestAdmission.bodyTooLarge(limit: services.admission.maxBodyBytes), context: context)
            }
        case .part(.end):
            guard let head = state.receiveEnd() else { return }
            var exchange = Exchange(head: head)
            if let upload { return endUpload(upload, exchange: exchange, context: context) }
            write(responder!.respond(to: head, exchange: &exchange, channel: context.channel), for: exchange, context: context)
        }
    }

    /// The admission stage's decision on a head: refused at once (and closed: a body nobody wants is never read or
    /// timed), 405 with what the resource allows, an upload begun, or the rest of the request awaited.
    private func admit(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        var exchange = Exchange(head: head)
        let decision = services.admission.decide(head)
        if case .upload(let sendContinue) = decision { return beginUpload(head, exchange: exchange, sendContinue: sendContinue, context: context) }
        if case .refuse(let error) = decision {
            state.requestComplete()
            // Refused before routing, but for an upload (a PUT), which is counted as one.
            if head.method == .PUT { exchange.route = responder!.label(head) }
            return writeError(error, exchange: exchange, forceClose: true, context: context)
        }
        let allowed = responder!.allowedMethods(uri: head.uri)
        guard case .proceed(let bodyFollows, let sendContinue) = decision, allowed.contains(head.method) else {
            state.requestComplete()
            exchange.route = responder!.label(head)
            return write(.methodNotAllowed(head.method, allowed: allowed), for: exchange, context: context)
        }
        // Every earlier answer is written (requests are processed in order): the interim answer comes in its place.
        if sendContinue { context.writeAndFlush(wrapOutboundOut(services.blocks.continue), promise: nil) }
        state.receiveHead(head, bodyFollows: bodyFollows, now: .now())
    }

    /// Answers a request the decoder could not parse, or whose body outgrew its limit, then closes the connection.
    func answerMalformed(_ error: RequestError, context: ChannelHandlerContext) {
        writeError(error, exchange: Exchange(malformedAt: .now()), forceClose: true, context: context)
    }

    /// Writes the awaited answer once it arrives (if the connection still waits for it), then what queued up.
    private func responseArrived(_ response: Response) {
        guard let context, let exchange = state.responseArrived() else { return response.discard() }
        write(response, for: exchange, context: context)
        resume(context: context)
    }

    /// Answers the queued requests once no answer is awaited, then resumes reading.
    func resume(context: ChannelHandlerContext) {
        while let inbound = state.nextQueued() { process(inbound, context: context) }
        if let error = state.takeDeferredError() { answerMalformed(error, context: context) }
        flushIfNeeded(context: context)
        guard state.mayProceed else { return }
        closeIfIdle(context: context)
        if state.releaseHeldRead() { context.read() }
    }

    /// Starts waiting for a ``Response/later`` answer to `exchange` (none for work whose client already closed its
    /// side: ``abandonWork(context:)``).
    func awaitResponse(for exchange: Exchange, context: ChannelHandlerContext) {
        state.awaitResponse(for: exchange)
        abandonWork(context: context)
    }

    /// After an answer of `bytes` body bytes: observed (``ExchangeObserver``), then the connection closes once written
    /// if the answer said so, else it waits for the next request.
    func finish(_ exchange: Exchange, status: HTTPStatus, bytes: Int, close: Bool, context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        observer.observe(exchange, status: status, bytes: bytes, now: now) { context.channel.remoteAddress }
        if close { return closeAfterWrites(context: context) }
        state.answered(now: now)
    }

    private func closeIfIdle(context: ChannelHandlerContext) {
        if state.shouldCloseWhenIdle { closeAfterWrites(context: context) }
    }
}
