import NIOCore

/// What the connections of one event loop share without locking: the `Date` line cache and a metrics shard.
final class LoopResources: Sendable {
    /// The loop's `Date` header cache; only touched on the loop.
    let date: NIOLoopBoundBox<DateHeader>
    /// The loop's metrics shard index.
    let metricsShard: Int

    /// Creates the resources of `eventLoop` (callable from any thread).
    init(eventLoop: any EventLoop, metricsShard: Int) {
        self.date = NIOLoopBoundBox.makeBoxSendingValue(DateHeader(), eventLoop: eventLoop)
        self.metricsShard = metricsShard
    }
}
