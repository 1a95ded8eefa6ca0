import NIOCore
import NIOPosix
import Synchronization
import TileCache

/// The tiles in memory: a byte-budgeted LRU cache of ``PreparedFile``s in front of the disk, where concurrent misses
/// for one tile share a single read (``SingleFlight``) done on a thread pool, never on an event loop.
final class TileStore: Sendable {
    /// The cache; its statistics feed `/metrics`.
    let cache: ConcurrentLRUCache<TileKey, PreparedFile>
    private let flights = SingleFlight<TileKey, PreparedFile>()
    private let threadPool: NIOThreadPool
    private let reads = Atomic<Int>(0)
    private let prefetchesInFlight = Atomic<Int>(0)
    private let maxTileBytes: Int
    /// Background loads allowed at once; beyond it a viewport's missing tiles wait for the client's own requests.
    let maxPrefetchesInFlight: Int

    /// Creates an empty store holding at most `budget` bytes, reading on `threadPool`.
    init(budget: Int, threadPool: NIOThreadPool, maxTileBytes: Int = 64 << 20, maxPrefetchesInFlight: Int = 64) {
        self.cache = ConcurrentLRUCache(budget: budget)
        self.threadPool = threadPool
        self.maxTileBytes = maxTileBytes
        self.maxPrefetchesInFlight = maxPrefetchesInFlight
    }

    /// Tile files read from disk so far.
    var diskReads: Int { reads.load(ordering: .relaxed) }

    /// The cached tile for `key`, marked most recently used; counts a cache hit or miss.
    func cached(_ key: TileKey) -> PreparedFile? {
        cache.value(for: key)
    }

    /// Loads tile `key` of `image` and calls `onResult` once, on a thread-pool thread: with the tile, or with a
    /// ``FileLoadError`` (or `CancellationError` while shutting down). Joins a load already under way for `key`.
    func load(_ key: TileKey, of image: CatalogImage, onResult: @escaping @Sendable (Result<PreparedFile, any Error>) -> Void) {
        if flights.join(key, onResult: onResult) {
            startLoad(key, of: image)
        }
    }

    /// Starts loading, in the background, those of `keys` (tiles of `image`) that are neither cached nor loading,
    /// in order, while fewer than ``maxPrefetchesInFlight`` background loads are under way — so a stream of
    /// viewports that each miss (a scripted scan, a fast fling) cannot flood the disk threads or starve requests.
    ///
    /// - Returns: How many loads were started.
    @discardableResult
    func prefetch(_ keys: some Sequence<TileKey>, of image: CatalogImage) -> Int {
        var started = 0
        for key in keys where !cache.contains(key) {
            guard prefetchesInFlight.add(1, ordering: .relaxed).newValue <= maxPrefetchesInFlight else {
                prefetchesInFlight.subtract(1, ordering: .relaxed)
                break
            }
            guard flights.join(key, onResult: { [self] _ in prefetchesInFlight.subtract(1, ordering: .relaxed) }) else {
                // Already loading for someone else: nothing started, and the waiter above still runs when it ends.
                continue
            }
            startLoad(key, of: image)
            started += 1
        }
        return started
    }

    /// Drops every cached tile of the images with the given ids.
    func evict(images: Set<Int>) {
        guard !images.isEmpty else { return }
        cache.removeAll { images.contains($0.image) }
    }

    private func startLoad(_ key: TileKey, of image: CatalogImage) {
        threadPool.submit { [self] state in
            let result: Result<PreparedFile, any Error>
            if let file = cache.peek(key) {
                // Filled by a flight that completed between this caller's miss and its join.
                result = .success(file)
            } else if case .cancelled = state {
                result = .failure(CancellationError())
            } else {
                reads.add(1, ordering: .relaxed)
                do {
                    result = .success(try FileLoader.load(image.tilePath(key), inside: image.filesDirectory, maxBytes: maxTileBytes))
                } catch {
                    result = .failure(error)
                }
                if case .success(let file) = result {
                    cache.insert(file, for: key, cost: file.cost)
                    // An image removed while its tile was being read must not leave the tile behind.
                    if !image.isServed { cache.removeValue(for: key) }
                }
            }
            flights.complete(key, with: result)
        }
    }
}
