import NIOCore

extension ConnectionHandler {
    /// Writes the responder's `response` to `exchange`: settled (``Response/settled(for:closing:blocks:)`` decides every
    /// HTTP question), encoded (``ResponseEncoder``), its body written, and the exchange observed. A ``Response/later``
    /// answer, or a deferred one whose work started, makes the connection wait for it (it is written when it arrives);
    /// an event stream's events follow its head until its last.
    func write(_ response: Response, for exchange: Exchange, context: ChannelHandlerContext) {
        var exchange = exchange
        guard let settled = response.settled(for: &exchange, closing: state.mustClose(exchange), blocks: services.blocks) else {
            return awaitResponse(for: exchange, context: context)
        }
        let fileRange = encoder.encodeHead(settled, isHTTP10: exchange.isHTTP10, date: date.current(), into: &headScratch)
        context.write(wrapOutboundOut(headScratch), promise: nil)
        let written = settled.reservation.map { reservation in
            // The body's budget is given back once the socket has taken it, or when the write fails (closed).
            let promise = context.eventLoop.makePromise(of: Void.self)
            promise.futureResult.whenComplete { _ in reservation.release() }
            return promise
        }
        switch settled.body {
        case .none:
            written?.succeed()
        case .bytes(let body):
            context.write(wrapOutboundOut(body), promise: written)
        case .region(let file, _):
            guard let range = fileRange, !range.isEmpty else {
                written?.succeed()
                break
            }
            cork(context: context)
            let sent = context.eventLoop.makePromise(of: Void.self)
            sent.futureResult.assumeIsolated().whenComplete { result in
                withExtendedLifetime(file) {}
                switch result {
                case .success: written?.succeed()
                case .failure(let error): written?.fail(error)
                }
            }
            let region = FileRegion(fileHandle: file.handle, readerIndex: file.offset + range.lowerBound, endIndex: file.offset + range.upperBound)
            context.write(NIOAny(IOData.fileRegion(region)), promise: sent)
        case .events(let source):
            return streamEvents(source, exchange: exchange, context: context)
        }
        finish(exchange, status: settled.status, bytes: settled.bodyBytes, close: settled.close, context: context)
    }

    /// Answers `error` with its status and a JSON body `{"error":"…","status":N}`; `forceClose` closes the connection
    /// after it.
    func writeError(_ error: RequestError, exchange: Exchange, forceClose: Bool = false, context: ChannelHandlerContext) {
        write(.error(error, extraHeaders: "", close: forceClose), for: exchange, context: context)
    }

    /// Writes a source's events after its head (``EventStream``), each as it comes; the exchange is observed, and the
    /// connection closed, after the last. Later requests on the connection wait, as for any answer in progress.
    private func streamEvents(_ source: any EventSource, exchange: Exchange, context: ChannelHandlerContext) {
        awaitResponse(for: exchange, context: context)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        var sent = 0
        let stream = EventStream(source: source, loop: context.eventLoop) { bytes, last in
            let handler = handler.value
            guard let context = handler.context else { return }
            sent += bytes.readableBytes
            context.writeAndFlush(handler.wrapOutboundOut(bytes), promise: nil)
            if last {
                handler.events = nil
                _ = handler.state.responseArrived()
                handler.finish(exchange, status: .ok, bytes: sent, close: true, context: context)
            }
        }
        events = stream
        stream.start()
    }
}
