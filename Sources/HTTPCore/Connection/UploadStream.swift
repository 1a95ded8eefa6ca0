import NIOCore
import NIOHTTP1

/// An admitted upload's body streaming into its ``RequestBodySink`` as it arrives: the connection's state counts it and
/// holds reads back while the sink is behind; a refusal mid-body (415, 413, 507, …) is answered at once, and a body
/// that can never be completed is aborted with a reason for the sink's record. Lives on the connection's event loop.
struct UploadStream {
    let sink: any RequestBodySink
    /// The upload's route, for the metrics and log of its answer.
    let route: RouteLabel

    /// Takes the next body bytes: nil, or the sink's refusal to answer now.
    func receive(_ body: ByteBuffer, state: inout ConnectionState, now: NIODeadline) -> RequestError? {
        state.receiveUploadBody(count: body.readableBytes, now: now)
        if let refusal = sink.receive(body) { return refusal }
        if sink.isHoldingReads { state.holdBody(true) }
        return nil
    }

    /// The body ended: `exchange`, labelled with the upload's route, is to await the answer the sink delivers once it
    /// has kept every byte (``RequestBodySink/finish(_:)``).
    func end(_ exchange: Exchange, state: inout ConnectionState) -> Exchange {
        state.holdBody(false)
        var exchange = exchange
        exchange.route = route
        return exchange
    }

    /// The exchange a refusal mid-body answers (nil when the request has already ended); the rest of the body is
    /// dropped.
    func refused(state: inout ConnectionState) -> Exchange? {
        state.holdBody(false)
        guard let head = state.receiveEnd() else { return nil }
        var exchange = Exchange(head: head)
        exchange.route = route
        return exchange
    }

    /// The body can never be completed: the client went (`clientLeft`, or no `error`), or it was malformed.
    func abort(clientLeft: Bool, error: (any Error)?) {
        sink.abort(
            clientLeft || error == nil
                ? "the client went away after \(sink.received) bytes; nothing was stored"
                : "the upload's body was malformed (\(error!)); nothing was stored")
    }
}
