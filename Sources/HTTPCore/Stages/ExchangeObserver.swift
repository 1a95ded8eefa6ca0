import NIOCore

/// The observe stage: the one place a finished exchange is seen — counted (by route and status, with its duration)
/// and, with an access log, logged. One per connection, on its event loop; every answer passes it, refusals and
/// timeouts included.
package final class ExchangeObserver {
    private let counter: any RequestCounter
    private let shard: Int
    private let accessLog: AccessLog?
    /// The client's address as the access log writes it, found once per connection.
    private var client: String?

    /// An observer counting in `counter`'s `shard` and logging to `accessLog`, if any (both the event loop's).
    package init(counter: any RequestCounter, shard: Int, accessLog: AccessLog?) {
        self.counter = counter
        self.shard = shard
        self.accessLog = accessLog
    }

    /// Observes `exchange`, answered with `status` and `bytes` body bytes, finished at `now`; `remoteAddress` is asked
    /// only for the first access-log line.
    package func observe(_ exchange: borrowing Exchange, status: HTTPStatus, bytes: Int, now: NIODeadline, remoteAddress: () -> SocketAddress?) {
        let elapsed = (now - exchange.started).nanoseconds
        counter.record(route: exchange.route, status: status, nanoseconds: elapsed, shard: shard)
        guard let accessLog else { return }
        if client == nil { client = remoteAddress()?.ipAddress ?? "-" }
        accessLog.record(exchange, status: status, bytes: bytes, microseconds: elapsed / 1000, client: client!)
    }
}
