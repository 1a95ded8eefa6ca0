/// Where the observe stage counts every finished exchange, by route and status (the service's metrics).
package protocol RequestCounter: Sendable {
    /// Counts one exchange of `route` answered with `status` after `nanoseconds`, in the event loop's `shard`.
    func record(route: RouteLabel, status: HTTPStatus, nanoseconds: Int64, shard: Int)
}
