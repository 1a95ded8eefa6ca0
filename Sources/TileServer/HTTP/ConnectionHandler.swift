import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// One connection's HTTP/1.1 lifecycle, after NIO's request decoder: takes requests (from ``SimpleRequestDecoder``
/// as ``SimpleRequestEvent``s, or as NIO's request parts), has the ``Router`` answer each with a ``Response``, and
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
final class ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    static let timeoutResponse = ByteBuffer(
        string: "HTTP/1.1 408 Request Timeout\r\nServer: tiler\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")

    let services: Services
    let date: DateHeader
    /// The event loop's open tile files, for misses sent straight from the page cache.
    let openTiles: OpenTileFiles
    /// The event loop's view of the catalog, for lookups without a lock shared with other loops.
    let catalog: CatalogView
    let metricsShard: Int
    /// The event loop's access log, if one is written.
    let accessLog: AccessLog?
    /// The client's address as the access log writes it, found once per connection.
    private var client: String?
    /// Answers requests; made when the handler joins its channel.
    private(set) var router: Router?
    /// Reused for response heads: written, sent, and (once the socket has taken it) written over again.
    var headScratch = ByteBuffer()
    var context: ChannelHandlerContext?
    /// The connection's state: its phase and deadlines, queue, reads, output (changed only through its transitions).
    var state: ConnectionState
    /// The connection's one timer, at the state's next deadline or tick (see `ConnectionHandler+Time.swift`).
    var timer: Scheduled<Void>?
    /// The upload whose body is being received, if any (see `ConnectionHandler+Upload.swift`).
    var upload: UploadReceiver?
    /// The job event stream being written, if any.
    var events: EventStream?

    /// Creates the handler of one connection, with `limits` for its states; `date`, `openTiles`, `catalog` and
    /// `metricsShard` belong to the connection's event loop.
    init(
        services: Services, date: DateHeader, openTiles: OpenTileFiles, catalog: CatalogView, metricsShard: Int, limits: ConnectionLimits,
        accessLog: AccessLog? = nil
    ) {
        self.accessLog = accessLog
        self.services = services
        self.date = date
        self.openTiles = openTiles
        self.catalog = catalog
        self.metricsShard = metricsShard
        self.state = ConnectionState(limits: limits, now: .now())
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        headScratch = context.channel.allocator.buffer(capacity: 512)
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        let tiles = TileLookup(store: services.tiles, openFiles: openTiles, usesCachestat: services.configuration.usesCachestat)
        router = Router(services: services, catalog: catalog, tiles: tiles) { response in
            loop.execute { handler.value.responseArrived(response) }
        }
        if context.channel.isActive { scheduleCheck(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        if timer == nil { scheduleCheck(context: context) }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        // The client has gone: a render it still waits for is wasted work, and its answer has nowhere to go.
        state.awaited?.render?.cancel()
        upload?.abort(upload.map { "the client went away after \($0.received) bytes; nothing was stored" } ?? "")
        upload = nil
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

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
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

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        if state.askRead() {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
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

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
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
            ? RequestError(status: .headersTooLarge, message: "the request head is larger than \(services.configuration.maxHeadBytes) bytes")
            : RequestError.badRequest("malformed request (\(parserError))")
        if !state.decodingFailed(requestError) && !state.isClosing {
            answerMalformed(requestError, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
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
            if !abandonRender(context: context) {
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
            let response = router!.respond(uri: request.uri, exchange: &exchange)
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
            if state.receiveBody(count: body.readableBytes) > services.configuration.maxRequestBodyBytes {
                refuseBody(context: context)
            }
        case .end:
            guard let head = state.receiveEnd() else { return }
            var exchange = Exchange(head: head)
            if let upload { return endUpload(upload, exchange: exchange, context: context) }
            let response = router!.respond(to: head, exchange: &exchange, channel: context.channel)
            write(response, for: exchange, context: context)
        }
    }

    /// Takes a request head from NIO's decoder: refuses at once (and closes) what ``RequestAdmission`` refuses, or a
    /// method its resource does not take; else waits for the request's end, its body (if any) timed by the head
    /// timeout.
    private func receive(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        var exchange = Exchange(head: head)
        let configuration = services.configuration
        let admission = RequestAdmission(maxBodyBytes: configuration.maxRequestBodyBytes, maxUploadBytes: configuration.maxUploadBytes)
        switch admission.decide(head) {
        case .refuse(let error):
            // Answered at once, closing, rather than wait for (and time) a body nobody wants.
            state.requestComplete()
            if head.method == .PUT { exchange.route = .upload }
            writeError(error, exchange: exchange, forceClose: true, context: context)
        case .refuseMethod:
            state.requestComplete()
            write(router!.refuseMethod(head, exchange: &exchange), for: exchange, context: context)
        case .upload(let sendContinue):
            beginUpload(head, exchange: exchange, sendContinue: sendContinue, context: context)
        case .proceed(let bodyFollows, let sendContinue):
            guard router!.allows(head) else {
                state.requestComplete()
                return write(router!.refuseMethod(head, exchange: &exchange), for: exchange, context: context)
            }
            if sendContinue {
                // Every earlier answer has been written (requests are processed in order), so the interim answer
                // comes in its place: the client may send its body now instead of waiting for its own timeout.
                context.writeAndFlush(wrapOutboundOut(services.blocks.continue), promise: nil)
            }
            state.receiveHead(head, bodyFollows: bodyFollows, now: .now())
        }
    }

    /// 413 for a body that streamed past the limit, then close (without reading the rest; the lingering close discards
    /// it).
    private func refuseBody(context: ChannelHandlerContext) {
        guard !state.isClosing else { return }
        let error = RequestAdmission.bodyTooLarge(limit: services.configuration.maxRequestBodyBytes)
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
    func resume(context: ChannelHandlerContext) {
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

    /// Starts waiting for a ``Response/later`` answer to `exchange` (none when it is a render for a client that has
    /// already closed its side: see ``abandonRender(context:)``).
    func awaitResponse(for exchange: Exchange, context: ChannelHandlerContext) {
        state.awaitResponse(for: exchange)
        abandonRender(context: context)
    }

    /// After a response of `bytes` body bytes: the one place a finished exchange is observed — counted in the metrics
    /// and, with an access log, logged — then the connection closes (once written) if the response said so, else it
    /// waits for the next request.
    func finish(_ exchange: Exchange, status: HTTPStatus, bytes: Int, close: Bool, context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        let elapsed = now - exchange.started
        services.metrics.record(route: exchange.route, status: status, nanoseconds: elapsed.nanoseconds, shard: metricsShard)
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
    func mustClose(_ exchange: Exchange) -> Bool {
        state.mustClose(exchange)
    }

    private func closeIfIdle(context: ChannelHandlerContext) {
        guard state.shouldCloseWhenIdle else { return }
        closeAfterWrites(context: context)
    }
}
