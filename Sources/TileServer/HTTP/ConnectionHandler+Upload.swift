import NIOCore
import NIOHTTP1

extension ConnectionHandler {
    /// Takes an upload's head: refused at once (then the connection closes; its body is never read, the lingering
    /// close drops it), or admitted — its body then streams into the job's staging file as it arrives
    /// (``UploadReceiver``), reads held back while the disk is behind.
    func beginUpload(_ head: HTTPRequestHead, exchange: Exchange, sendContinue: Bool, context: ChannelHandlerContext) {
        var exchange = exchange
        switch router!.admitUpload(head, exchange: &exchange) {
        case .refused(let response):
            state.requestComplete()
            let closing: Response
            if case .error(let error, let extraHeaders, _) = response {
                closing = .error(error, extraHeaders: extraHeaders, close: true)
            } else {
                closing = response
            }
            write(closing, for: exchange, context: context)
        case .admitted(let job):
            let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
            upload = UploadReceiver(
                job: job, queue: services.jobs, limit: services.configuration.maxUploadBytes, profile: services.blocks.jsonNoStore,
                threadPool: services.tiles.threadPool, loop: context.eventLoop
            ) { refusal in handler.value.uploadNotified(refusal) }
            if sendContinue {
                context.writeAndFlush(wrapOutboundOut(services.blocks.continue), promise: nil)
            }
            state.receiveHead(head, bodyFollows: true, now: .now())
        }
    }

    /// Body bytes of the upload being received.
    func receiveUploadBody(_ body: ByteBuffer, upload: UploadReceiver, context: ChannelHandlerContext) {
        state.receiveUploadBody(count: body.readableBytes, now: .now())
        if let refusal = upload.receive(body) { return refuseUpload(refusal, context: context) }
        if upload.isHoldingReads { state.holdBody(true) }
    }

    /// The upload's body ended: the answer (202 and the job, or a refusal) comes once every byte is on disk.
    func endUpload(_ upload: UploadReceiver, exchange: Exchange, context: ChannelHandlerContext) {
        self.upload = nil
        state.holdBody(false)
        var exchange = exchange
        exchange.route = .upload
        let deliver = router!.deliver
        write(.later, for: exchange, context: context)
        upload.finish { response in deliver(response) }
    }

    /// The receiver's news: the disk caught up (`nil`: reads may resume), or a refusal to answer now.
    func uploadNotified(_ refusal: RequestError?) {
        guard let context else { return }
        if let refusal { return refuseUpload(refusal, context: context) }
        state.holdBody(false)
        resume(context: context)
    }

    /// Answers a refused upload mid-body (415, 413, 507, …) and closes: the rest of the body is dropped.
    private func refuseUpload(_ error: RequestError, context: ChannelHandlerContext) {
        upload = nil
        state.holdBody(false)
        guard let head = state.receiveEnd() else { return }
        var exchange = Exchange(head: head)
        exchange.route = .upload
        writeError(error, exchange: exchange, forceClose: true, context: context)
        flushIfNeeded(context: context)
    }
}
