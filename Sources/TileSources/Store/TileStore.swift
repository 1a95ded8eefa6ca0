import HTTPCore
import NIOCore
import NIOPosix
import Synchronization
import TileCache

/// The tiles in memory: a byte-budgeted LRU cache of ``LoadedFile``s in front of the disk, where concurrent misses
/// for one tile share a single read (``SingleFlight``) done on a thread pool, never on an event loop.
package final class TileStore: Sendable, TileReading {
    /// The cache; its statistics feed `/metrics`.
    package let cache: ConcurrentLRUCache<TileKey, LoadedFile>
    package let flights = SingleFlight<TileKey, LoadedFile>()
    package let threadPool: NIOThreadPool
    private let reads = Atomic<Int>(0)
    private let inlineReads = Atomic<Int>(0)
    private let warmingReads = Atomic<Int>(0)
    private let fileSends = Atomic<Int>(0)
    private let joins = Atomic<Int>(0)
    private let warmedRequested = Atomic<Int>(0)
    /// How long warmed tiles took from their visible-rect query to the cache.
    package let warmingLag = WarmingLag()
    /// Tile files larger than this are refused.
    package let maxTileBytes: Int
    /// The default of ``maxTileBytes``: 64 MiB.
    package static let defaultMaxTileBytes = 64 << 20
    /// The memory tiles made from a stored pyramid's pixels may hold while made, shared with IIIF renders.
    package let renderBudget: RenderBudget
    /// The requests waiting for each tile being made (see ``abandoned(_:)``): a tile every one of whose requests was
    /// cancelled (their clients went) is not made.
    package let interest = Mutex<[TileKey: [RenderJob?]]>([:])
    package let abandonedCount = Atomic<Int>(0)

    /// Creates an empty store holding at most `budget` bytes, reading on `threadPool` what is not in the page cache;
    /// tiles made from stored pixels reserve their working memory in `renderBudget`.
    package init(
        budget: Int, threadPool: NIOThreadPool, maxTileBytes: Int = TileStore.defaultMaxTileBytes,
        renderBudget: RenderBudget = RenderBudget(limit: Int.max)
    ) {
        // Sized for tiles of about 16 KiB.
        self.cache = ConcurrentLRUCache(budget: budget, admission: .frequency(expectedEntries: budget >> 14))
        self.threadPool = threadPool
        self.maxTileBytes = maxTileBytes
        self.renderBudget = renderBudget
    }

    /// Tile files read into the cache so far: by requests (on an event loop or a file thread) and by warming.
    package var readCount: Int { reads.load(ordering: .relaxed) }
    /// Of ``readCount``, the reads done on an event loop (page cache, no thread hop).
    package var eventLoopReadCount: Int { inlineReads.load(ordering: .relaxed) }
    /// Of ``readCount``, the reads done by background warming.
    package var warmingReadCount: Int { warmingReads.load(ordering: .relaxed) }
    /// Misses the cache did not admit, sent from their files without entering the cache.
    package var fileSendCount: Int { fileSends.load(ordering: .relaxed) }
    /// Misses that waited for a read already under way (a warming read or another request's) instead of reading.
    package var joinCount: Int { joins.load(ordering: .relaxed) }
    /// Of ``warmingReadCount``, the warmed tiles a request took (from the cache, or by joining the warming read).
    package var warmedRequestedCount: Int { warmedRequested.load(ordering: .relaxed) }

    /// Counts a miss the cache did not admit, sent from its file instead.
    package func countFileSend() {
        fileSends.add(1, ordering: .relaxed)
    }

    /// The cached tile for `key`, marked most recently used; counts a cache hit or miss.
    package func cached(_ key: TileKey) -> LoadedFile? {
        guard let file = cache.value(for: key) else { return nil }
        claim(file)
        return file
    }

    /// Counts the first request for a warmed tile.
    private func claim(_ file: LoadedFile) {
        if let mark = file.claimMark, mark.claim() {
            warmedRequested.add(1, ordering: .relaxed)
        }
    }

    /// Loads tile `key` of `image` for an event loop: at once when its bytes are in the page cache (as nginx reads
    /// small files, but never waiting for the device), else on the file threads like ``load(_:of:onResult:)``.
    /// Joins a load already under way for `key`, so concurrent misses still read once. `opened`, the tile's file
    /// already open on this loop, spares the event loop's read an `openat`.
    ///
    /// - Returns: The result when it was had at once (`onResult` is then never called), or how `onResult` will be
    ///   called once, on another thread: after this miss's own read, or after a read already under way (a join).
    package func loadNow(
        _ key: TileKey, of image: CatalogImage, opened: OpenFile? = nil, job: RenderJob? = nil,
        onResult: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void
    ) -> LoadStart {
        if image.source.makesTiles { interest.withLock { $0[key, default: []].append(job) } }
        let joined: @Sendable (Result<LoadedFile, any Error>) -> Void = { [self] result in
            if case .success(let file) = result { claim(file) }
            onResult(result)
        }
        guard flights.lead(key, otherwise: joined) else {
            joins.add(1, ordering: .relaxed)
            return .joined
        }
        if let file = cache.peek(key) {
            // Warmed between this request's cache lookup and now.
            claim(file)
            complete(key, with: .success(file))
            return .now(.success(file))
        }
        let result: Result<LoadedFile, any Error>
        do {
            let loaded: LoadedFile?
            if let opened {
                loaded = try opened.readIfCached()
            } else {
                loaded = try readTile(key, of: image, pageCacheOnly: true)
            }
            guard let file = loaded else {
                // On disk only: wait for a file thread like any other caller (or for the network: no thread waits).
                _ = flights.join(key, onResult: onResult)
                if fetch(key, of: image) { return .reading }
                // The file opened for this miss is the file read: the thread gets the descriptor, not the name.
                threadPool.submit { [self] state in read(key, of: image, opened: opened, state: state) }
                return .reading
            }
            inlineReads.add(1, ordering: .relaxed)
            result = .success(store(file, for: key, of: image))
        } catch {
            result = .failure(error)
        }
        complete(key, with: result)
        return .now(result)
    }

    /// How ``loadNow(_:of:opened:onResult:)`` went.
    package enum LoadStart {
        /// Had at once; the callback is never called.
        case now(Result<LoadedFile, any Error>)
        /// This miss's own read, on a file thread.
        case reading
        /// A read already under way (a warming read or another request's), which this miss waits for.
        case joined
    }

    /// Reads tile `key` of `image` into the cache unless it is there or being read, for the warming thread; a query
    /// asked for it at `queuedAt` (the lag is counted). The read is a flight of its own, so a request for the tile
    /// arriving meanwhile joins it rather than reading the file a second time. It never joins a request's read.
    /// Blocking.
    package func warm(_ key: TileKey, of image: CatalogImage, queuedAt: NIODeadline) {
        guard image.isServed, !cache.contains(key), flights.waiterCount(for: key) == nil else { return }
        // Lost a race with a request's miss: that read will do.
        guard flights.lead(key, otherwise: { _ in }) else { return }
        if let file = cache.peek(key) { return complete(key, with: .success(file)) }
        // A source read over the network is asked and not waited for: the warming thread goes on to the next tile.
        let fetching = image.source.fetch(key, of: image) { [self] result in
            complete(key, with: result.map { warmed($0, for: key, of: image, queuedAt: queuedAt) })
        }
        guard !fetching else { return }
        do {
            guard let file = try readTile(key, of: image, pageCacheOnly: false) else {
                throw FileLoadError(kind: .unreadable, message: "tile not read")
            }
            complete(key, with: .success(warmed(file, for: key, of: image, queuedAt: queuedAt)))
        } catch {
            complete(key, with: .failure(error))
        }
    }

    /// Caches a tile warming read, marked so that the first request for it is counted, and counts its lag.
    private func warmed(_ file: LoadedFile, for key: TileKey, of image: CatalogImage, queuedAt: NIODeadline) -> LoadedFile {
        var file = file
        file.claimMark = ClaimMark()
        warmingReads.add(1, ordering: .relaxed)
        defer { warmingLag.record(nanoseconds: (NIODeadline.now() - queuedAt).nanoseconds) }
        return store(file, for: key, of: image)
    }

    /// Loads tile `key` of `image` and calls `onResult` once, on a thread-pool thread: with the tile, or with a
    /// ``FileLoadError`` (or `CancellationError` while shutting down). Joins a load already under way for `key`.
    package func load(_ key: TileKey, of image: CatalogImage, onResult: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void) {
        if flights.join(key, onResult: onResult) {
            startLoad(key, of: image)
        }
    }

    /// The tiles `keys` of `image`, in order: each from the cache, or read (or made) here, on the calling thread, and
    /// cached — for a tile made from others (``StoredTiles``), which runs on a file thread and must not wait for the
    /// file threads. Blocking.
    package func filesMadeHere(_ keys: [TileKey], of image: CatalogImage) throws -> [LoadedFile] {
        try keys.map { key in
            if let file = cache.peek(key) { return file }
            guard let file = try readTile(key, of: image, pageCacheOnly: false, reserving: false) else {
                throw RenderError(message: "tile \(key.level)/\(key.column)_\(key.row) of \(image.name) could not be read")
            }
            return store(file, for: key, of: image)
        }
    }

    /// Drops every cached tile of the images with the given ids.
    package func evict(images: Set<Int>) {
        guard !images.isEmpty else { return }
        cache.removeAll { images.contains($0.image) }
    }

    package func startLoad(_ key: TileKey, of image: CatalogImage) {
        if fetch(key, of: image) { return }
        threadPool.submit { [self] state in read(key, of: image, state: state) }
    }

    /// Starts the flight's read over the network when `image`'s source is read so (``TileSource/fetch(_:of:onResult:)``);
    /// `false` when it is read on a file thread instead.
    private func fetch(_ key: TileKey, of image: CatalogImage) -> Bool {
        image.source.fetch(key, of: image) { [self] result in
            complete(key, with: result.map { store($0, for: key, of: image) })
        }
    }

    /// The file-thread side of a flight: reads (unless cached meanwhile or shutting down) and completes it.
    private func read(_ key: TileKey, of image: CatalogImage, opened: OpenFile? = nil, state: NIOThreadPool.WorkItemState) {
        let result: Result<LoadedFile, any Error>
        if let file = cache.peek(key) {
            // Filled by a flight that completed between this caller's miss and its join (perhaps a warming read).
            claim(file)
            result = .success(file)
        } else if abandoned(key) {
            result = .failure(CancellationError())
        } else if case .cancelled = state {
            result = .failure(CancellationError())
        } else {
            do {
                let file: LoadedFile
                if let opened {
                    file = try opened.read()
                } else {
                    file = try readTile(key, of: image, pageCacheOnly: false)!
                }
                result = .success(store(file, for: key, of: image))
            } catch {
                result = .failure(error)
            }
        }
        complete(key, with: result)
    }

    /// Reads tile `key` of `image` from its source (``TileSource/read(_:of:pageCacheOnly:reserving:store:)``). `nil`
    /// only with `pageCacheOnly`, when the bytes are not all in memory.
    private func readTile(_ key: TileKey, of image: CatalogImage, pageCacheOnly: Bool, reserving: Bool = true) throws -> LoadedFile? {
        try image.source.read(key, of: image, pageCacheOnly: pageCacheOnly, reserving: reserving, store: self)
    }

    /// Counts a read of `file` and caches it; returns it.
    package func store(_ file: LoadedFile, for key: TileKey, of image: CatalogImage) -> LoadedFile {
        reads.add(1, ordering: .relaxed)
        cache.insert(file, for: key, cost: file.cost)
        // An image removed while its tile was being read must not leave the tile behind.
        if !image.isServed { cache.removeValue(for: key) }
        return file
    }
}
