import NIOCore
import NIOHTTP1

extension ConnectionHandler {
    /// Takes the head of an upload: refused at once (then the connection closes: its body is never read, the lingering
    /// close drops it), or admitted — its body then streams in (``UploadStream``).
    func beginUpload(_ head: HTTPRequestHead, sendContinue: Bool, context: ChannelHandlerContext) {
        var exchange = Exchange(head: head)
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        switch responder!.admitBody(head, exchange: &exchange, eventLoop: context.eventLoop, notify: { handler.value.uploadNotified($0) }) {
        case .refused(let response):
            state.requestComplete()
            write(response, for: exchange, closing: true, context: context)
        case .admitted(let sink):
            upload = UploadStream(sink: sink, route: exchange.route)
            if sendContinue { context.writeAndFlush(wrapOutboundOut(services.blocks.continue), promise: nil) }
            state.receiveHead(head, bodyFollows: true, now: .now())
        }
    }

    /// The sink's news: it caught up (`nil`: reads may resume), or a refusal to answer now.
    func uploadNotified(_ refusal: RequestError?) {
        guard let context else { return }
        if let refusal { return refuseUpload(refusal, context: context) }
        state.holdBody(false)
        resume(context: context)
    }

    /// Answers a refusal mid-body and closes.
    func refuseUpload(_ error: RequestError, context: ChannelHandlerContext) {
        guard let exchange = upload.take()?.refused(state: &state) else { return }
        write(.error(error), for: exchange, closing: true, context: context)
        flushIfNeeded(context: context)
    }
}
