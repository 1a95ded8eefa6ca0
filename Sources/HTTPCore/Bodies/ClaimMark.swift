import Synchronization

/// A mark a cached entry can carry until its first taker claims it: a cache that loads entries nobody asked for yet
/// (read-ahead) marks them, so that the reads a request later took can be counted apart from those none did.
package final class ClaimMark: Sendable {
    private let unclaimed = Atomic<Bool>(true)

    /// Creates an unclaimed mark.
    package init() {}

    /// Claims the mark; `true` only for the first caller. O(1), one atomic exchange.
    package func claim() -> Bool {
        unclaimed.exchange(false, ordering: .relaxed)
    }
}
