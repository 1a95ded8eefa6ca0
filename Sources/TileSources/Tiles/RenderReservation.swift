import HTTPCore
import Synchronization

/// Bytes held in a ``RenderBudget`` by one render: resized once the body's size is known, and given back exactly once
/// — by ``release()`` when the body has been written or the render failed, or when the reservation is deallocated
/// (a response dropped because its connection closed), whichever comes first.
///
/// Thread-safe: the render thread resizes it, the event loop releases it.
package final class RenderReservation: BodyReservation {
    private let budget: RenderBudget
    /// The bytes held, or `-1` once released.
    private let held: Atomic<Int>

    /// Holds `bytes` the caller has already added to `budget`.
    package init(budget: RenderBudget, bytes: Int) {
        self.budget = budget
        held = Atomic(bytes)
    }

    deinit {
        release()
    }

    /// The bytes held (0 once released).
    package var bytes: Int { max(0, held.load(ordering: .relaxed)) }

    /// Whether the bytes have been given back.
    package var isReleased: Bool { held.load(ordering: .relaxed) < 0 }

    /// Holds `bytes` (≥ 0) instead, even beyond the budget (the body exists already); nothing once released.
    ///
    /// - Complexity: O(1).
    package func resize(to bytes: Int) {
        precondition(bytes >= 0, "a reservation cannot be negative")
        var current = held.load(ordering: .relaxed)
        while current >= 0 {
            let (exchanged, original) = held.compareExchange(expected: current, desired: bytes, ordering: .relaxed)
            if exchanged { return budget.adjust(by: bytes - current) }
            current = original
        }
    }

    /// Gives the bytes back; later calls do nothing.
    ///
    /// - Complexity: O(1).
    package func release() {
        let bytes = held.exchange(-1, ordering: .relaxed)
        if bytes > 0 { budget.adjust(by: -bytes) }
    }
}
