import NIOCore
import Synchronization

/// How long warmed tiles waited between the visible-rect query that asked for them and their arrival in the cache:
/// a histogram over ``LatencyBuckets/bounds`` (the last bucket `+Inf`), behind one lock taken once per warm read.
package final class WarmingLag: Sendable {
    private let counts = Mutex(WarmingLagCounts())

    /// Creates an empty histogram.
    package init() {}

    /// Counts one tile that reached the cache `nanoseconds` after its query. O(buckets).
    package func record(nanoseconds: Int64) {
        let seconds = Double(max(0, nanoseconds)) / 1e9
        let bounds = LatencyBuckets.bounds
        var bucket = 0
        while bucket < bounds.count && seconds > bounds[bucket] { bucket += 1 }
        counts.withLock {
            $0.buckets[bucket] += 1
            $0.sum += seconds
        }
    }

    /// The counts so far.
    package func snapshot() -> WarmingLagCounts {
        counts.withLock { $0 }
    }
}

/// A snapshot of ``WarmingLag``: bucket counts (not cumulative) and the total lag in seconds.
public struct WarmingLagCounts: Sendable, Hashable {
    /// Tiles per bucket of ``LatencyBuckets/bounds``, the last one `+Inf`.
    public var buckets = [Int](repeating: 0, count: LatencyBuckets.bounds.count + 1)
    /// The sum of every lag counted, in seconds.
    public var sum = 0.0
}
