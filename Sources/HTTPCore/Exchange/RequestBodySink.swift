import NIOCore

/// Where an admitted request body streams as it arrives (an upload's staging file), on the connection's event loop.
package protocol RequestBodySink: AnyObject {
    /// The body bytes taken so far.
    var received: Int { get }
    /// Whether the sink is behind and the connection should stop reading until it says otherwise.
    var isHoldingReads: Bool { get }
    /// Takes the next bytes of the body; a refusal (413, 415, 507, …) ends the request at once.
    func receive(_ body: ByteBuffer) -> RequestError?
    /// The body ended: `deliver` is called once with the answer, once every byte is kept.
    func finish(_ deliver: @escaping (Response) -> Void)
    /// The body will never be completed (the client went, or it was malformed): `message` says why, for its record.
    func abort(_ message: String)
}
