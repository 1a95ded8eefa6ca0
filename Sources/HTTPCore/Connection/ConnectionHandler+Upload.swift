import NIOCore
import NIOHTTP1

extension ConnectionHandler {
    /// Takes the head of a request whose body streams to the service (an upload): refused at once (then the
    /// connection closes; its body is never read, the lingering close drops it), or admitted — its body then streams
    /// into the responder's sink as it arrives, reads held back while the sink is behind.
    func beginUpload(_ head: HTTPRequestHead, exchange: Exchange, sendContinue: Bool, context: ChannelHandlerContext) {
        var exchange = exchange
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let admission = responder!.admitBody(head, exchange: &exchange, eventLoop: context.eventLoop) { refusal in
            handler.value.uploadNotified(refusal)
        }
        switch admission {
        case .refused(let response):
            state.requestComplete()
            guard case .error(let error, let extraHeaders, _) = response else { return write(response, for: exchange, context: context) }
            write(.error(error, extraHeaders: extraHeaders, close: true), for: exchange, context: context)
        case .admitted(let sink):
            upload = sink
            uploadRoute = exchange.route
            if sendContinue { context.writeAndFlush(wrapOutboundOut(services.blocks.continue), promise: nil) }
            state.receiveHead(head, bodyFollows: true, now: .now())
        }
    }

    /// Body bytes of the upload being received.
    func receiveUploadBody(_ body: ByteBuffer, upload: any RequestBodySink, context: ChannelHandlerContext) {
        state.receiveUploadBody(count: body.readableBytes, now: .now())
        if let refusal = upload.receive(body) { return refuseUpload(refusal, context: context) }
        if upload.isHoldingReads { state.holdBody(true) }
    }

    /// The upload's body ended: the answer (its job, or a refusal) comes once the sink has kept every byte.
    func endUpload(_ upload: any RequestBodySink, exchange: Exchange, context: ChannelHandlerContext) {
        self.upload = nil
        state.holdBody(false)
        var exchange = exchange
        exchange.route = uploadRoute
        let deliver = self.deliver!
        write(.later, for: exchange, context: context)
        upload.finish { response in deliver(response) }
    }

    /// The sink's news: it caught up (`nil`: reads may resume), or a refusal to answer now.
    func uploadNotified(_ refusal: RequestError?) {
        guard let context else { return }
        if let refusal { return refuseUpload(refusal, context: context) }
        state.holdBody(false)
        resume(context: context)
    }

    /// The upload being received can never be completed: the client went (`ended`), or its body was malformed.
    func abortUpload(ended: Bool, error: (any Error)? = nil) {
        guard let upload else { return }
        self.upload = nil
        upload.abort(
            ended || error == nil
                ? "the client went away after \(upload.received) bytes; nothing was stored"
                : "the upload's body was malformed (\(error!)); nothing was stored")
    }

    /// Answers a refused upload mid-body (415, 413, 507, …) and closes: the rest of the body is dropped.
    private func refuseUpload(_ error: RequestError, context: ChannelHandlerContext) {
        upload = nil
        state.holdBody(false)
        guard let head = state.receiveEnd() else { return }
        var exchange = Exchange(head: head)
        exchange.route = uploadRoute
        writeError(error, exchange: exchange, forceClose: true, context: context)
        flushIfNeeded(context: context)
    }
}
