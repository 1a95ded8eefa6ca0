import ImageCodecs
import Synchronization
import TileCache

/// The OpenSlide handles open at one time, shared by every slide the server serves: at most ``capacity``, the least
/// recently used closed first. A slide not in the table is opened again on its next read (``SlidePyramid``), so the
/// descriptors OpenSlide keeps (a TIFF-based format holds one per concurrent reader) and its per-handle tile cache
/// (32 MiB at most in OpenSlide 3.4) are bounded by the capacity, not by how many slides ROOT holds.
///
/// Thread-safe: one lock around the table; a handle evicted while a read uses it is closed when that read is done
/// (the reader holds a reference).
package final class SlideHandles: Sendable {
    /// The most handles open.
    package let capacity: Int
    private let table: Mutex<LRUCache<Int, Slide>>
    private let nextID = Atomic<Int>(1)

    /// The table the server uses: 8 handles.
    package static let shared = SlideHandles(capacity: 8)

    /// Creates an empty table of at most `capacity` (≥ 1) handles.
    package init(capacity: Int) {
        precondition(capacity >= 1, "capacity must be ≥ 1")
        self.capacity = capacity
        table = Mutex(LRUCache(budget: capacity))
    }

    /// A new key for a slide's handle.
    package func makeID() -> Int { nextID.add(1, ordering: .relaxed).oldValue }

    /// The open handle of slide `id`, marked most recently used; nil when it is not open.
    ///
    /// - Complexity: O(1).
    package func handle(_ id: Int) -> Slide? {
        table.withLock { $0.value(for: id) }
    }

    /// Keeps `slide` as slide `id`'s handle; the least recently used one is closed if the table is full.
    package func keep(_ slide: Slide, for id: Int) {
        // Evicted handles are closed here, outside the lock, once the array goes.
        let evicted = table.withLock { $0.insert(slide, for: id, cost: 1) }
        _ = evicted
    }

    /// Closes slide `id`'s handle (once no read uses it), e.g. after OpenSlide put it in its error state.
    package func drop(_ id: Int) {
        let removed = table.withLock { $0.removeValue(for: id) }
        _ = removed
    }

    /// How many handles are open.
    package var openCount: Int { table.withLock { $0.count } }
}
