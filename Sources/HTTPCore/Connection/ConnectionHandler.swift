import NIOCore
import NIOHTTP1

/// One connection's HTTP/1.1 lifecycle after the decoders: it moves requests to the stages and their answers to the
/// socket, and keeps time; the stages decide. Each request passes admission (``RequestAdmission``), its ``Responder``
/// (route, authorise, handle), settle (``Response/settled(for:closing:blocks:)``), encode (``ResponseWriter``) and
/// observe (``ExchangeObserver``) — refusals, 408s, uploads and event streams alike — in request order. What it knows
/// of the connection, deadlines included, is its ``ConnectionState``; its one timer asks that state what is due.
///
/// Pipelining: while an answer is awaited (a read on a file thread, a render) or the send queue is over its high-water
/// mark, later requests queue and reads are held back; they are answered in order once it is written or the queue
/// drains. On `ChannelShouldQuiesceEvent` (shutdown) what was received is answered, the last with `Connection: close`.
package final class ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias OutboundIn = ByteBuffer
    package typealias OutboundOut = ByteBuffer

    let services: ConnectionServices
    let observer: ExchangeObserver
    /// Whether the channel is an HTTP/2 stream rather than a socket: socket options (cork, the bytes buffered in the
    /// kernel) do not apply, and NIO's stream channel traps on them.
    let isStream: Bool
    // The handler's state is touched on the event loop only. No method holds an access to one of these across a call
    // that could come back into the handler for the same property (NIO's synchronous callbacks, such as a
    // writability change during a write, touch `state` while `writer` is busy, never the same one): the runtime's
    // exclusivity checks, about 75 instructions an access and a dozen accesses a request, would guard nothing.
    @exclusivity(unchecked) var writer: ResponseWriter
    private let makeResponder: (@escaping ResponseDelivery) -> any Responder
    /// What to do with each request part read (made when the handler joins its channel), and where later answers go.
    @exclusivity(unchecked) var intake: RequestIntake?
    private(set) var deliver: ResponseDelivery?
    @exclusivity(unchecked) var context: ChannelHandlerContext?
    @exclusivity(unchecked) package internal(set) var state: ConnectionState
    /// The connection's one timer, at the state's next deadline (see `ConnectionHandler+Time.swift`).
    var timer: Scheduled<Void>?
    /// The event stream being written, if any.
    var events: EventStream?

    /// The handler of one connection (or of one HTTP/2 stream, `isStream`: its channel is no socket), with `limits`
    /// for its states; `date`, `metricsShard` and `accessLog` are the connection's event loop's; `makeResponder` is
    /// called once, when the handler joins its channel.
    package init(
        services: ConnectionServices, date: DateHeader, metricsShard: Int, limits: ConnectionLimits, accessLog: AccessLog? = nil,
        isStream: Bool = false, makeResponder: @escaping (_ deliver: @escaping ResponseDelivery) -> any Responder
    ) {
        self.services = services
        self.isStream = isStream
        self.writer = ResponseWriter(blocks: services.blocks, date: date, filesAsBytes: services.filesAsBytes, corks: !isStream)
        self.observer = ExchangeObserver(counter: services.counter, shard: metricsShard, accessLog: accessLog)
        self.makeResponder = makeResponder
        self.state = ConnectionState(limits: limits, now: .now())
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let (loop, handler) = (context.eventLoop, NIOLoopBound(self, eventLoop: context.eventLoop))
        let deliver: ResponseDelivery = { response in loop.execute { handler.value.responseArrived(response) } }
        self.deliver = deliver
        // Hops to the loop's next turn: the sink may tell of a refusal while the intake is busy with the body.
        let notify: (RequestError?) -> Void = { refusal in loop.execute { handler.value.uploadNotified(refusal) } }
        intake = RequestIntake(admission: services.admission, responder: makeResponder(deliver), notify: notify)
        if context.channel.isActive { scheduleCheck(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
        // The responder holds `deliver`, which holds this handler: let go of both, or every connection (every HTTP/2
        // stream) would stay in memory. Work still under way keeps `deliver`, and with it the handler, until it ends.
        intake = nil
        deliver = nil
    }

    package func channelActive(context: ChannelHandlerContext) {
        if timer == nil { scheduleCheck(context: context) }
        context.fireChannelActive()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        intake?.abortUpload(clientLeft: true, error: nil)
        events?.stop()
        events = nil
        state.closed()
        context.fireChannelInactive()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        accept(.part(unwrapInboundIn(data)), context: context)
    }

    /// A request the ``SimpleRequestDecoder`` in front read, handed over by a call rather than down the pipeline:
    /// NIO's decoder between the two would cast every event it passes on (about 1,500 instructions a request).
    package func acceptSimple(_ request: SimpleRequest) {
        guard let context else { return }
        accept(.simple(request), context: context)
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

    /// The end of a read burst none of which went down the pipeline (``SimpleRequestDecoder`` read it all), told by
    /// a call: what was written is flushed.
    package func readComplete() {
        guard let context else { return }
        flushIfNeeded(context: context)
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
        intake?.abortUpload(clientLeft: (error as? HTTPParserError) == .invalidEOFState, error: error)
        // I/O errors (a reset connection): nothing to answer.
        guard let parserError = error as? HTTPParserError else { return context.close(promise: nil) }
        let refusal = RequestAdmission.refusal(for: parserError, maxHeadBytes: services.maxHeadBytes)
        if !state.decodingFailed(refusal) && !state.isClosing { answerMalformed(refusal, context: context) }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            state.quiesce()
            closeIfIdle(context: context)
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            // The client stopped sending inside an upload's body: it can never be completed.
            if intake?.abortUpload(clientLeft: true, error: nil) == true { return context.close(promise: nil) }
            state.closeInput()
            state.abandonWork() ? closeAfterWrites(context: context) : closeIfIdle(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Carries out what the intake says of `inbound` (``RequestIntake/take(_:state:channel:)``).
    private func process(_ inbound: ConnectionState.Inbound, context: ChannelHandlerContext) {
        switch intake!.take(inbound, state: &state, channel: context.channel) {
        case .none: break
        case .answer(let response, let exchange, let closing): write(response, for: exchange, closing: closing, context: context)
        case .refuse(let error): answerMalformed(error, context: context)
        case .sendContinue: context.writeAndFlush(wrapOutboundOut(services.blocks.continue), promise: nil)
        case .refuseUpload(let error): refuseUpload(error, context: context)
        case .awaitUpload(let exchange, let sink):
            write(.later, for: exchange, context: context)
            sink.finish(deliver!)
        }
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
}
