import NIOCore
import NIOHTTP1

/// What a connection does with each request part it reads, decided without writing to the socket: a head gets the
/// admission stage's step (an upload's body admitted or refused by the ``Responder``), a body streams into its upload
/// or is dropped within the limit, an end is answered by the responder. The ``ConnectionHandler`` carries out the
/// ``Action`` returned. Lives on the connection's event loop.
struct RequestIntake {
    /// What the connection does next.
    enum Action {
        case none
        /// Write this answer to the exchange; `closing`: then close the connection whatever the request asked.
        case answer(Response, Exchange, closing: Bool)
        /// Answer a request that cannot be read further (malformed, or its body over the limit), then close.
        case refuse(RequestError)
        /// Write the interim `100 Continue`.
        case sendContinue
        /// Answer an upload refused mid-body, then close.
        case refuseUpload(RequestError)
        /// Await the upload's answer, which its sink delivers once it has kept every byte.
        case awaitUpload(Exchange, any RequestBodySink)
    }

    let admission: RequestAdmission
    let responder: any Responder
    /// Given to an admitted upload's sink: it caught up (`nil`) or refuses the rest of the body.
    let notify: (RequestError?) -> Void
    /// The upload whose body streams in, if any.
    private(set) var upload: UploadStream?

    /// Takes the next request part (or a whole simple request) and says what to do; `state` follows the request.
    mutating func take(_ inbound: ConnectionState.Inbound, state: inout ConnectionState, channel: any Channel) -> Action {
        switch inbound {
        case .simple(let request):
            state.requestComplete()
            var exchange = Exchange(request)
            let response = responder.respond(to: request, exchange: &exchange)
            return .answer(response, exchange, closing: false)
        case .part(.head(let head)):
            return admit(head, state: &state, eventLoop: channel.eventLoop)
        case .part(.body(let body)):
            if let upload { return upload.receive(body, state: &state, now: .now()).map(Action.refuseUpload) ?? .none }
            // Bodies of GET, HEAD and OPTIONS mean nothing here: read and dropped, up to the limit.
            guard state.receiveBody(count: body.readableBytes) > admission.maxBodyBytes, !state.isClosing else { return .none }
            if state.receiveEnd() == nil { state.requestComplete() }
            return .refuse(RequestAdmission.bodyTooLarge(limit: admission.maxBodyBytes))
        case .part(.end):
            guard let head = state.receiveEnd() else { return .none }
            var exchange = Exchange(head: head)
            if let upload = upload.take() { return .awaitUpload(upload.end(exchange, state: &state), upload.sink) }
            let response = responder.respond(to: head, exchange: &exchange, channel: channel)
            return .answer(response, exchange, closing: false)
        }
    }

    /// `head`'s step (``RequestAdmission/step(for:responder:)``); an upload refused at its head closes the connection
    /// (its body is never read: the lingering close drops it).
    private mutating func admit(_ head: HTTPRequestHead, state: inout ConnectionState, eventLoop: any EventLoop) -> Action {
        var exchange = Exchange(head: head)
        switch admission.step(for: head, responder: responder) {
        case .answer(let response, let route):
            state.requestComplete()
            exchange.route = route ?? exchange.route
            return .answer(response, exchange, closing: false)
        case .upload(let sendContinue):
            switch responder.admitBody(head, exchange: &exchange, eventLoop: eventLoop, notify: notify) {
            case .refused(let response):
                state.requestComplete()
                return .answer(response, exchange, closing: true)
            case .admitted(let sink):
                upload = UploadStream(sink: sink, route: exchange.route)
                state.receiveHead(head, bodyFollows: true, now: .now())
                return sendContinue ? .sendContinue : .none
            }
        case .receive(let bodyFollows, let sendContinue):
            state.receiveHead(head, bodyFollows: bodyFollows, now: .now())
            return sendContinue ? .sendContinue : .none
        }
    }

    /// The exchange an upload refused mid-body answers, the rest of its body dropped; nil when no upload streams or
    /// its request has ended.
    mutating func refuseUpload(state: inout ConnectionState) -> Exchange? { upload.take()?.refused(state: &state) }

    /// Aborts the upload whose body streams in (``UploadStream/abort(clientLeft:error:)``); `false` when none does.
    @discardableResult
    mutating func abortUpload(clientLeft: Bool, error: (any Error)?) -> Bool {
        guard let upload = upload.take() else { return false }
        upload.abort(clientLeft: clientLeft, error: error)
        return true
    }
}
