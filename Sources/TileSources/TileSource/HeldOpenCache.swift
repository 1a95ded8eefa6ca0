import Synchronization
import TileCache

/// Things the server holds open for tile reads — level folders (``LevelDirectoryCache``), the files of pyramids stored
/// in one file (``StoredFileCache``) — at most ``capacity`` of them, the least recently used closed first, like
/// nginx's `open_file_cache max=`. Values are references: one evicted while another thread uses it is closed only when
/// that thread lets go of it (its descriptor cannot be reused under the read). Thread-safe: one lock, never held while
/// opening or closing.
package final class HeldOpenCache<Key: Hashable & Sendable, Value: AnyObject & Sendable>: Sendable {
    /// The most values held at once (≥ 0).
    package let capacity: Int
    private let entries: Mutex<LRUCache<Key, Value>>
    private let openings = Atomic<Int>(0)

    /// Creates an empty cache holding at most `capacity` (≥ 0) values.
    package init(capacity: Int) {
        precondition(capacity >= 0, "a negative capacity")
        self.capacity = capacity
        self.entries = Mutex(LRUCache(budget: capacity))
    }

    /// The number of values held now. O(1), takes the lock.
    package var count: Int { entries.withLock { $0.count } }

    /// How many values have been opened and kept so far.
    package var openCount: Int { openings.load(ordering: .relaxed) }

    /// The value for `key`: held, marked most recently used, or opened now with `open` and kept (evicting the least
    /// recently used one when full; with a capacity of 0, returned without being kept). When two threads open the
    /// same key at once, one value is kept and both get it.
    ///
    /// - Returns: nil when `open` gives nil (nothing kept).
    /// - Throws: what `open` throws (nothing kept).
    /// - Complexity: O(1) (one lock) when held; else also `open`, run outside the lock.
    package func value<E: Error>(for key: Key, open: () throws(E) -> Value?) throws(E) -> Value? {
        if let held = entries.withLock({ $0.value(for: key) }) { return held }
        guard let opened = try open() else { return nil }
        guard capacity > 0 else { return opened }
        let (kept, evicted) = entries.withLock { cache -> (Value, [LRUCache<Key, Value>.Element]) in
            if let raced = cache.value(for: key) { return (raced, []) }
            return (opened, cache.insert(opened, for: key, cost: 1))
        }
        if kept === opened { openings.add(1, ordering: .relaxed) }
        // Evicted values are released here, outside the lock (closed unless a reader still holds them).
        withExtendedLifetime(evicted) {}
        return kept
    }

    /// Releases (closed once unused) the values whose keys satisfy `doomed`.
    ///
    /// - Complexity: O(n) in the values held.
    package func removeAll(where doomed: (Key) -> Bool) {
        let removed = entries.withLock { cache in
            let keys = cache.compactMap { doomed($0.key) ? $0.key : nil }
            return keys.compactMap { cache.removeValue(for: $0) }
        }
        withExtendedLifetime(removed) {}
    }

    /// Every value held, with its key (for checks made outside the lock).
    package var held: [(key: Key, value: Value)] {
        entries.withLock { cache in cache.map { ($0.key, $0.value) } }
    }

    /// Releases each of `pairs` that is still held as that very value.
    package func remove(_ pairs: [(key: Key, value: Value)]) {
        let removed = entries.withLock { cache in
            pairs.compactMap { key, value in cache.peek(key) === value ? cache.removeValue(for: key) : nil }
        }
        withExtendedLifetime(removed) {}
    }
}
