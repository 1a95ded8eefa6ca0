import HTTPCore
import Synchronization
import TileSources

/// Request counters and latency histograms, by route and status, sharded per event loop so that recording takes
/// an uncontended lock; ``snapshot()`` adds the shards up for `/metrics`.
final class Metrics: Sendable, RequestCounter {
    private let shards: [MetricsShard]

    /// Creates `shardCount` zeroed shards.
    init(shardCount: Int) {
        precondition(shardCount >= 1)
        shards = (0..<shardCount).map { _ in MetricsShard() }
    }

    /// The number of shards; ``record(route:status:nanoseconds:shard:)`` takes a shard index below it.
    var shardCount: Int { shards.count }

    /// Counts one answered request that took `nanoseconds` from its head arriving to its response being queued.
    ///
    /// - Complexity: O(buckets); no allocation.
    func record(route: RouteLabel, status: HTTPStatus, nanoseconds: Int64, shard: Int) {
        shards[shard].counts.withLock { $0.record(route: route, status: status, seconds: Double(nanoseconds) / 1e9) }
    }

    /// All shards added up.
    func snapshot() -> MetricsCounts {
        var total = MetricsCounts()
        for shard in shards {
            shard.counts.withLock { total.add($0) }
        }
        return total
    }
}

/// One shard's counters behind their lock, padded to two cache lines so that the shards' lock words, written on
/// every request by different cores, never share a line.
private final class MetricsShard: Sendable {
    let counts = Mutex(MetricsCounts())
    private let padding: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
}

/// The numbers behind ``Metrics``: plain arrays indexed by ``RouteLabel/rawValue`` and ``HTTPStatus/index``.
struct MetricsCounts: Sendable {
    /// Requests by route × status: `requests[route * statusCount + status]`.
    var requests = [Int](repeating: 0, count: RouteLabel.allCases.count * HTTPStatus.allCases.count)
    /// Latency bucket counts (not cumulative) by route × bucket, the last bucket being `+Inf`.
    var buckets = [Int](repeating: 0, count: RouteLabel.allCases.count * (LatencyBuckets.bounds.count + 1))
    /// Total latency by route, in seconds.
    var latencySum = [Double](repeating: 0, count: RouteLabel.allCases.count)

    mutating func record(route: RouteLabel, status: HTTPStatus, seconds: Double) {
        requests[route.rawValue * HTTPStatus.allCases.count + status.index] += 1
        let bounds = LatencyBuckets.bounds
        var bucket = 0
        while bucket < bounds.count && seconds > bounds[bucket] { bucket += 1 }
        buckets[route.rawValue * (bounds.count + 1) + bucket] += 1
        latencySum[route.rawValue] += seconds
    }

    mutating func add(_ other: MetricsCounts) {
        for index in requests.indices { requests[index] += other.requests[index] }
        for index in buckets.indices { buckets[index] += other.buckets[index] }
        for index in latencySum.indices { latencySum[index] += other.latencySum[index] }
    }

    /// Requests answered for `route` with `status`.
    func requests(route: RouteLabel, status: HTTPStatus) -> Int {
        requests[route.rawValue * HTTPStatus.allCases.count + status.index]
    }
}
