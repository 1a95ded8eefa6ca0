import NIOCore
import NIOHTTP1

#if canImport(Glibc)
    import Glibc
#endif

/// One connection's HTTP/1.1 logic, after NIO's request decoder: routes each request, answers it with pre-encoded
/// header blocks and slices of cached bytes, and keeps responses in request order.
///
/// Pipelining: while a response waits for the disk (a tile miss, a viewer file), later request parts are queued
/// and reads from the socket are held back (backpressure); when it is written, the queue is answered in order.
/// Malformed requests get 400 (431 for oversized heads) and the connection is closed. On
/// `ChannelShouldQuiesceEvent` (shutdown) the requests received are answered, the last with `Connection: close`.
final class ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    let server: Services
    let date: DateHeader
    /// The event loop's open tile files, for misses sent straight from the page cache.
    let openTiles: OpenTileFiles
    /// The event loop's view of the catalog, for lookups without a lock shared with other loops.
    let catalog: CatalogView
    let metricsShard: Int
    /// The connection's timeout handler, told when requests start and when all is answered.
    let timeouts: ConnectionTimeoutHandler?
    /// Reused for response heads: written, sent, and (once the socket has taken it) written over again.
    var headScratch = ByteBuffer()

    var context: ChannelHandlerContext?
    /// Requests and request parts received while a response was pending, in order.
    var queue = CircularBuffer<Inbound>(initialCapacity: 4)
    /// The head of the request being received (its `.end` not yet seen).
    var head: HTTPRequestHead?
    /// The request whose response waits for the thread pool.
    var pending: Exchange?
    /// A `read` was asked for while reads were held back.
    var readHeld = false
    /// The connection closes once the last response is written; nothing more is read or answered.
    var closing = false
    /// Shutdown asked the connection to finish.
    var quiescing = false
    /// The client closed its side; close once everything received is answered.
    var inputClosed = false
    /// A decoding error to answer once the responses queued before it are written.
    var deferredError: RequestError?
    /// Responses were written since the last flush.
    var needsFlush = false
    /// `TCP_CORK` is on (see ``cork(context:)``); turned off after the flush.
    private(set) var corked = false

    /// Creates the handler of one connection; `date`, `openTiles`, `catalog` and `metricsShard` belong to the
    /// connection's event loop, as does `timeouts`, the handler in front of the decoder on the same connection.
    init(
        server: Services, date: DateHeader, openTiles: OpenTileFiles, catalog: CatalogView, metricsShard: Int,
        timeouts: ConnectionTimeoutHandler?
    ) {
        self.server = server
        self.date = date
        self.openTiles = openTiles
        self.catalog = catalog
        self.metricsShard = metricsShard
        self.timeouts = timeouts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        headScratch = context.channel.allocator.buffer(capacity: 512)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// What reaches the handler: a request read by ``SimpleRequestDecoder`` or a part of one NIO's decoder read.
    enum Inbound {
        case simple(SimpleRequest)
        case part(HTTPServerRequestPart)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        accept(.part(unwrapInboundIn(data)), context: context)
    }

    /// Takes a request from the ``SimpleRequestDecoder`` in front of NIO's decoder, as if it had come down the
    /// pipeline.
    func receive(_ request: SimpleRequest) {
        guard let context else { return }
        accept(.simple(request), context: context)
    }

    private func accept(_ inbound: Inbound, context: ChannelHandlerContext) {
        guard !closing else { return }
        if pending != nil || !queue.isEmpty {
            queue.append(inbound)
        } else {
            process(inbound, context: context)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        flushIfNeeded(context: context)
        context.fireChannelReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        if pending != nil || !queue.isEmpty || closing {
            readHeld = true
        } else {
            context.read()
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            // I/O errors (a reset connection): nothing to answer.
            context.close(promise: nil)
            return
        }
        head = nil
        let requestError =
            parserError == .headerOverflow
            ? RequestError(status: .headersTooLarge, message: "the request head is larger than \(server.configuration.maxHeadBytes) bytes")
            : RequestError.badRequest("malformed request (\(parserError))")
        if pending != nil || !queue.isEmpty {
            deferredError = requestError
        } else if !closing {
            answerMalformed(requestError, context: context)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent {
            quiescing = true
            closeIfIdle(context: context)
        } else if let event = event as? ChannelEvent, event == .inputClosed {
            inputClosed = true
            closeIfIdle(context: context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Handles a simple request (answers it) or a request part (remembers heads, answers at `.end`).
    func process(_ inbound: Inbound, context: ChannelHandlerContext) {
        let part: HTTPServerRequestPart
        switch inbound {
        case .simple(let request):
            timeouts?.requestStarted()
            return respond(uri: request.uri, exchange: Exchange(request), context: context)
        case .part(let received):
            part = received
        }
        switch part {
        case .head(let requestHead):
            timeouts?.requestStarted()
            if requestHead.method == .GET || requestHead.method == .HEAD
                || (requestHead.method == .OPTIONS && requestHead.uri.hasPrefix(IIIFRoute.prefix + "/"))
            {
                head = requestHead
            } else {
                // Answer at once and close rather than wait for (and time) a body nobody wants.
                refuseMethod(requestHead, context: context)
            }
        case .body:
            break
        case .end:
            guard let requestHead = head else { return }
            head = nil
            respond(to: requestHead, context: context)
        }
    }

    /// Called when a pending response has been written: answers the queued requests, then resumes reading.
    func resume(context: ChannelHandlerContext) {
        while pending == nil && !closing, let part = queue.popFirst() {
            process(part, context: context)
        }
        if pending == nil && !closing, let error = deferredError {
            deferredError = nil
            answerMalformed(error, context: context)
        }
        flushIfNeeded(context: context)
        guard pending == nil && !closing else { return }
        closeIfIdle(context: context)
        if readHeld && !closing {
            readHeld = false
            context.read()
        }
    }

    /// After a response: closes (once written) if it said so, else tells the timeout handler when all is answered.
    func finish(_ exchange: Exchange, status: HTTPStatus, close: Bool, context: ChannelHandlerContext) {
        let elapsed = NIODeadline.now() - exchange.started
        server.metrics.record(route: exchange.route, status: status, nanoseconds: elapsed.nanoseconds, shard: metricsShard)
        if close {
            closeAfterWrites(context: context)
        } else {
            needsFlush = true
            if pending == nil && queue.isEmpty && head == nil {
                timeouts?.becameIdle()
            }
        }
    }

    /// Whether the response being written must close the connection.
    func mustClose(_ exchange: Exchange) -> Bool {
        !exchange.keepAlive || (quiescing && queue.isEmpty)
    }

    private func closeIfIdle(context: ChannelHandlerContext) {
        guard !closing, pending == nil, queue.isEmpty, head == nil, quiescing || inputClosed else { return }
        closeAfterWrites(context: context)
    }

    /// Stops answering and closes the connection once everything written so far has been sent.
    func closeAfterWrites(context: ChannelHandlerContext) {
        closing = true
        queue.removeAll()
        needsFlush = false
        context.writeAndFlush(wrapOutboundOut(ByteBuffer())).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
        uncork(context: context)
    }

    func flushIfNeeded(context: ChannelHandlerContext) {
        if needsFlush {
            needsFlush = false
            context.flush()
        }
        uncork(context: context)
    }

    /// Holds back partial segments (`TCP_CORK`, one `setsockopt`) until ``uncork(context:)``: a response head
    /// written with `write` and its body sent with `sendfile` then leave as one segment, not two (which also cost
    /// the client a second wake-up), as nginx's `tcp_nopush` does.
    func cork(context: ChannelHandlerContext) {
        guard !corked else { return }
        corked = true
        setCorkOption(1, context: context)
    }

    /// Sends what cork held back, once the flush has handed it to the socket.
    private func uncork(context: ChannelHandlerContext) {
        guard corked else { return }
        corked = false
        setCorkOption(0, context: context)
    }

    private func setCorkOption(_ value: Int, context: ChannelHandlerContext) {
        try? context.channel.syncOptions?.setOption(.tcpOption(NIOBSDSocket.Option(rawValue: TCP_CORK)), value: value)
    }
}
