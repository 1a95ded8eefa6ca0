import NIOCore

/// The deadlines and bounds of one connection's states (see ``ConnectionState``).
package struct ConnectionLimits: Sendable {
    /// A request's head and any body it declares must arrive within this of its first byte; a new connection must
    /// start a request within it.
    package let headTimeout: TimeAmount
    /// How long a connection may wait for its next request after an answer.
    package let idleTimeout: TimeAmount
    /// How long a client may take none of the response bytes queued for it.
    package let sendTimeout: TimeAmount
    /// The longest a lingering close waits for the client to finish sending or to close its side.
    package let lingerTime: TimeAmount
    /// The most a lingering close reads and drops before it closes anyway, in bytes.
    package let lingerBytes: Int
    /// How often the connection's timer looks at least: half the shorter of the head and send timeouts (at least
    /// 1 ms), so that deadlines hold to within a tick and moving them costs no scheduling.
    package let tick: TimeAmount

    /// Limits with the given timeouts (each > 0) and nginx's lingering close: 2 s and 1 MiB.
    package init(
        headTimeout: TimeAmount, idleTimeout: TimeAmount, sendTimeout: TimeAmount, lingerTime: TimeAmount = .seconds(2), lingerBytes: Int = 1 << 20
    ) {
        precondition(headTimeout.nanoseconds > 0 && idleTimeout.nanoseconds > 0 && sendTimeout.nanoseconds > 0, "timeouts must be positive")
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.sendTimeout = sendTimeout
        self.lingerTime = lingerTime
        self.lingerBytes = lingerBytes
        self.tick = .nanoseconds(max(min(headTimeout.nanoseconds, sendTimeout.nanoseconds) / 2, 1_000_000))
    }
}
