/// What every connection's handler shares with the others: the admission rules, the response pieces, where finished
/// exchanges are counted, the open connections, and how a connection gets its ``Responder``. Immutable or internally
/// synchronised.
package final class ConnectionServices: Sendable {
    /// The response pieces (status lines, connection lines, the error profile).
    package let blocks: HTTPBlocks
    /// The admission stage's limits.
    package let admission: RequestAdmission
    /// The most bytes a request head may have (431 beyond).
    package let maxHeadBytes: Int
    /// Where every finished exchange is counted.
    package let counter: any RequestCounter
    /// The open connections.
    package let connections: ConnectionRegistry
    /// Whether connections are TLS, whose file bodies are read and sent as bytes (see ``ResponseWriter``).
    package let filesAsBytes: Bool

    /// The shared parts of connections that admit with `admission`, answer with `blocks`, take heads of up to
    /// `maxHeadBytes` bytes, count exchanges in `counter` and are registered in `connections`; TLS connections when
    /// `filesAsBytes`.
    package init(
        blocks: HTTPBlocks, admission: RequestAdmission, maxHeadBytes: Int, counter: any RequestCounter, connections: ConnectionRegistry,
        filesAsBytes: Bool = false
    ) {
        self.filesAsBytes = filesAsBytes
        self.blocks = blocks
        self.admission = admission
        self.maxHeadBytes = maxHeadBytes
        self.counter = counter
        self.connections = connections
    }
}
