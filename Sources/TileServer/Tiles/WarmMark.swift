import Synchronization

/// The mark a warmed tile carries in the cache until a request first takes it, so that warm reads no request ever
/// asked for can be counted (``TileStore/warmingReadCount`` minus ``TileStore/warmedRequestedCount``).
final class WarmMark: Sendable {
    private let unclaimed = Atomic<Bool>(true)

    /// Creates an unclaimed mark.
    init() {}

    /// Claims the mark; `true` only for the first caller. O(1), one atomic exchange.
    func claim() -> Bool {
        unclaimed.exchange(false, ordering: .relaxed)
    }
}
