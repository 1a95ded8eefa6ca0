import Synchronization
import TileCache

/// The files of pyramids stored in one file (``StoredPyramid``: a pyramidal TIFF, …) that the server holds open, at
/// most ``capacity`` of them whatever the size of the catalog — as ``LevelDirectoryCache`` bounds level folders. The
/// catalog reads a file's levels when it finds it and closes it again; the file is opened here on its first tile
/// request and closed when it is the least recently used one and another needs its place. So 10,000 pyramidal TIFFs
/// in ROOT cost no more descriptors than 10,000 folder pyramids.
///
/// Pyramids are handed out as references: one evicted while another thread reads a tile from it is closed only when
/// that thread lets go of it (its descriptor cannot be reused under the read).
final class StoredFileCache: Sendable {
    /// The most files held open at once (0: none; every tile request opens and closes its file).
    let capacity: Int
    private let entries: Mutex<LRUCache<Int, Held>>
    private let openings = Atomic<Int>(0)

    /// One open pyramid, as a reference the LRU cache can hold.
    private final class Held: Sendable {
        let pyramid: any StoredPyramid
        init(_ pyramid: any StoredPyramid) { self.pyramid = pyramid }
    }

    /// Creates an empty cache holding at most `capacity` (≥ 0) files open.
    init(capacity: Int) {
        precondition(capacity >= 0, "a negative capacity")
        self.capacity = capacity
        self.entries = Mutex(LRUCache(budget: capacity))
    }

    /// The number of files open now. O(1), takes the lock.
    var count: Int { entries.withLock { $0.count } }

    /// How many files have been opened so far.
    var openCount: Int { openings.load(ordering: .relaxed) }

    /// The open pyramid of catalog entry `image`: from the cache, marked most recently used, or opened now with `open`
    /// and kept (evicting the least recently used file when full).
    ///
    /// - Throws: what `open` throws; nothing is kept then.
    /// - Complexity: O(1) (one lock) on a hit; on a miss also `open`, run outside the lock.
    func pyramid<E: Error>(image: Int, open: () throws(E) -> any StoredPyramid) throws(E) -> any StoredPyramid {
        if let held = entries.withLock({ $0.value(for: image) }) { return held.pyramid }
        let opened = Held(try open())
        openings.add(1, ordering: .relaxed)
        guard capacity > 0 else { return opened.pyramid }
        let (kept, evicted) = entries.withLock { cache -> (Held, [LRUCache<Int, Held>.Element]) in
            // Another thread may have opened the same file meanwhile: keep one.
            if let raced = cache.value(for: image) { return (raced, []) }
            return (opened, cache.insert(opened, for: image, cost: 1))
        }
        // Evicted files are released here, outside the lock (closed unless a reader still holds them).
        withExtendedLifetime(evicted) {}
        return kept.pyramid
    }

    /// Closes (once unused) the files of the given images.
    ///
    /// - Complexity: O(n) in the files held.
    func removeAll(images: Set<Int>) {
        guard !images.isEmpty else { return }
        let removed = entries.withLock { cache in
            let doomed = cache.compactMap { images.contains($0.key) ? $0.key : nil }
            return doomed.compactMap { cache.removeValue(for: $0) }
        }
        withExtendedLifetime(removed) {}
    }
}
