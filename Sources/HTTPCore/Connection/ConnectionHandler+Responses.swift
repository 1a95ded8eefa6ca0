import NIOCore

extension ConnectionHandler {
    /// Writes `response` to `exchange`: settled, written (``ResponseWriter``) and observed. A ``Response/later`` answer,
    /// or a deferred one whose work started, is awaited; an event stream's events follow its head until its last.
    /// `closing`: the connection closes after it whatever the request asked.
    func write(_ response: consuming Response, for exchange: consuming Exchange, closing: Bool = false, context: ChannelHandlerContext) {
        let closing = closing || state.mustClose(exchange)
        guard let settled = response.settled(for: &exchange, closing: closing, blocks: services.blocks) else {
            return awaitResponse(for: exchange, context: context)
        }
        let cork = { if self.state.cork() { context.setCork(true) } }
        if let source = writer.write(settled, isHTTP10: exchange.isHTTP10, context: context, cork: cork) {
            return streamEvents(source, exchange: exchange, context: context)
        }
        finish(exchange, status: settled.status, bytes: settled.bodyBytes, close: settled.close, context: context)
    }

    /// Answers a request the decoder could not parse, or whose body outgrew its limit, then closes the connection.
    func answerMalformed(_ error: RequestError, context: ChannelHandlerContext) {
        write(.error(error), for: Exchange(malformedAt: .now()), closing: true, context: context)
    }

    /// Starts waiting for a ``Response/later`` answer to `exchange` (none for work whose client already closed its
    /// side: ``ConnectionState/abandonWork()``).
    func awaitResponse(for exchange: Exchange, context: ChannelHandlerContext) {
        state.awaitResponse(for: exchange)
        if state.abandonWork() { closeAfterWrites(context: context) }
    }

    /// After an answer of `bytes` body bytes: observed, then the connection closes once written if the answer said so,
    /// else it waits for the next request.
    func finish(_ exchange: borrowing Exchange, status: HTTPStatus, bytes: Int, close: Bool, context: ChannelHandlerContext) {
        let now = NIODeadline.now()
        observer.observe(exchange, status: status, bytes: bytes, now: now) { context.channel.remoteAddress }
        if close { return closeAfterWrites(context: context) }
        state.answered(now: now)
    }

    /// Writes a source's events after its head (``EventStream``), each as it comes; the exchange is observed, and the
    /// connection closed, after the last. Later requests on the connection wait, as for any answer in progress.
    private func streamEvents(_ source: any EventSource, exchange: Exchange, context: ChannelHandlerContext) {
        awaitResponse(for: exchange, context: context)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        events = EventStream(source: source, context: context) { sent in
            handler.value.events = nil
            _ = handler.value.state.responseArrived()
            handler.value.finish(exchange, status: .ok, bytes: sent, close: true, context: context)
        }
        events?.start()
    }
}
