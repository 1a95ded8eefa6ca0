import NIOCore

extension ConnectionHandler {
    /// The upload sink's news: it caught up (`nil`: reads may resume), or a refusal to answer now.
    func uploadNotified(_ refusal: RequestError?) {
        guard let context else { return }
        if let refusal { return refuseUpload(refusal, context: context) }
        state.holdBody(false)
        resume(context: context)
    }

    /// Answers a refusal mid-body and closes.
    func refuseUpload(_ error: RequestError, context: ChannelHandlerContext) {
        guard let exchange = intake?.refuseUpload(state: &state) else { return }
        write(.error(error), for: exchange, closing: true, context: context)
        flushIfNeeded(context: context)
    }
}
