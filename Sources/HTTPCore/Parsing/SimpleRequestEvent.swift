/// A request ``SimpleRequestDecoder`` read, on its way down the pipeline as a user inbound event. One per connection,
/// refilled for each request: the connection handler copies ``request`` out as it receives the event.
package final class SimpleRequestEvent {
    /// The request last read.
    package var request = SimpleRequest(uri: "/", isHead: false, isHTTP10: false, keepAlive: true, ifNoneMatch: nil)
}
