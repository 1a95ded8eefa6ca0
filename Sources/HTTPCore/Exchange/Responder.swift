import NIOCore
import NIOHTTP1

/// What answers a connection's requests: the service above the HTTP core. ``ConnectionHandler`` makes one per
/// connection (``ConnectionServices/makeResponder``) and asks it the questions only the service can answer — which
/// route a target is, which methods it takes, what the answer is, whether an upload may stream in — while the
/// connection keeps every HTTP decision of its own (admission, settling, encoding, time). Used on the connection's
/// event loop only.
package protocol Responder {
    /// Answers a request ``SimpleRequestDecoder`` read (a `GET` or `HEAD` answered from its target and a few headers),
    /// recording its route in `exchange`.
    func respond(to request: SimpleRequest, exchange: inout Exchange) -> Response

    /// Answers a complete request NIO's decoder read (any method the resource takes), recording its route in
    /// `exchange`. `channel` is the connection (its local address, for answers that name the server).
    func respond(to head: HTTPRequestHead, exchange: inout Exchange, channel: any Channel) -> Response

    /// The methods the resource `uri` takes, for `Allow` and 405.
    func allowedMethods(uri: String) -> [HTTPMethod]

    /// The route `head` would take, for the metrics and log of a request refused before it is answered.
    func label(_ head: HTTPRequestHead) -> RouteLabel

    /// Whether a request with a body that is streamed to the service as it arrives (an upload) may begin: refused
    /// (the answer; the connection then closes without reading the body) or admitted, with the sink its bytes go to.
    /// `notify` is how the sink tells the connection, on its event loop, that reads may resume (`nil`) or that the
    /// body is refused mid-way.
    func admitBody(
        _ head: HTTPRequestHead, exchange: inout Exchange, eventLoop: any EventLoop, notify: @escaping (RequestError?) -> Void
    ) -> BodyAdmission
}

/// A ``Responder``'s decision on a request body that streams to the service (``Responder/admitBody(_:exchange:eventLoop:notify:)``).
package enum BodyAdmission {
    /// Not taken: this is the answer.
    case refused(Response)
    /// Taken: the body's bytes go to this sink as they arrive.
    case admitted(any RequestBodySink)
}
