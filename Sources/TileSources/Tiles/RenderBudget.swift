import Synchronization

/// The memory IIIF renders may hold, in bytes: each render reserves its estimated size before it starts (its
/// working rows and its encoded body, see ``RegionRenderer/estimatedBytes(for:in:tileFormat:)``), shrinks the
/// reservation to its body once encoded, and gives it back once the body has been written to the socket or the
/// connection has closed — so bodies waiting for a client that does not read count too. A render that does not fit
/// is refused (the handler answers 503 with `Retry-After`), except that one render is always admitted when nothing is
/// reserved, so that an image larger than the whole budget can still be rendered, alone.
///
/// Thread-safe, lock-free: reservations are made on event loops and given back from any thread.
package final class RenderBudget: Sendable {
    /// The budget, in bytes (≥ 0).
    package let limit: Int
    private let reservedBytes = Atomic<Int>(0)
    private let refusals = Atomic<Int>(0)

    /// A budget of `limit` bytes.
    package init(limit: Int) {
        precondition(limit >= 0, "a render budget cannot be negative")
        self.limit = limit
    }

    /// Bytes reserved now (renders running and bodies not yet sent).
    package var reserved: Int { reservedBytes.load(ordering: .relaxed) }

    /// Renders refused so far because the budget was in use.
    package var refused: Int { refusals.load(ordering: .relaxed) }

    /// Reserves `bytes` (≥ 0) if they fit — `reserved + bytes ≤ limit`, or nothing is reserved — else counts a refusal.
    ///
    /// - Returns: The reservation, which gives the bytes back exactly once (``RenderReservation/release()``, or when it
    ///   is deallocated); `nil` when they do not fit.
    /// - Complexity: O(1) (a compare-and-exchange loop).
    package func reserve(_ bytes: Int) -> RenderReservation? {
        precondition(bytes >= 0, "a reservation cannot be negative")
        var current = reservedBytes.load(ordering: .relaxed)
        while current == 0 || current + bytes <= limit {
            let (exchanged, original) = reservedBytes.compareExchange(expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return RenderReservation(budget: self, bytes: bytes) }
            current = original
        }
        refusals.wrappingAdd(1, ordering: .relaxed)
        return nil
    }

    /// Adds `delta` bytes (negative: gives them back); only ``RenderReservation`` calls it.
    package func adjust(by delta: Int) {
        let after = reservedBytes.wrappingAdd(delta, ordering: .relaxed).newValue
        assert(after >= 0, "more bytes given back to the render budget than were reserved")
    }
}
