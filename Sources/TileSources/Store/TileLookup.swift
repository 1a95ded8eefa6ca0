import HTTPCore
import NIOCore

/// "Give me this tile": the one place that decides how a tile is answered — from the cache, sent from its open file,
/// read now from the page cache, or read on a file thread (joining a read already in flight) — owning the cache's
/// admission check, the page-cache check and the event loop's open-file table. The router turns its answers into
/// responses.
///
/// One per connection, used on its event loop (``OpenTileFiles`` is the loop's); the store behind it is shared.
package struct TileLookup {
    /// What a miss comes to.
    package enum Miss {
        /// Not admitted to the cache, and all in the page cache: send it from this open file (`sendfile`).
        case sendFile(OpenFile)
        /// Read now without waiting for the disk — admitted into the cache, or, not admitted, read to be sent once —
        /// or failed for certain.
        case read(Result<LoadedFile, any Error>)
        /// Being read on a file thread by this request: the result goes to the `onRead` given, once, from another
        /// thread.
        case reading
        /// Waiting for a read already under way (a warming read or another request's): the result goes to `onRead`
        /// like ``reading``. Counted apart from hits and plain misses.
        case joined
    }

    /// The tile cache and its reads, shared by every loop.
    package let store: TileStore
    /// The event loop's open tile files.
    package let openFiles: OpenTileFiles
    /// Whether to ask `cachestat(2)` before sending a file (see ``ServerConfiguration``).
    package let usesCachestat: Bool

    /// Lookups in `store`, with this event loop's `openFiles`; `usesCachestat`: whether to ask `cachestat` (Linux 6.5)
    /// if a file is in the page cache.
    package init(store: TileStore, openFiles: OpenTileFiles, usesCachestat: Bool) {
        self.store = store
        self.openFiles = openFiles
        self.usesCachestat = usesCachestat
    }

    /// The cached tile for `key`, marked most recently used (counts a hit or a miss).
    package func cached(_ key: TileKey) -> LoadedFile? {
        store.cached(key)
    }

    /// Makes the cached ones of `keys` the most recently used, the first the most recent of all; returns how many
    /// were cached. For the visible-rect query, whose viewport's tiles must stay.
    package func touch(_ keys: [TileKey]) -> Int {
        store.cache.touch(keys)
    }

    /// Tile `key` of `image`, which was not cached. When the cache is full and does not admit the tile (it was not
    /// asked for more often lately than the tile it would evict), the tile is answered from its open file without
    /// entering the cache: sent as it is (`sendfile`, nothing copied into the process) when `cachestat` says it is all
    /// in the page cache; where the kernel cannot tell (before Linux 6.5), read without waiting (`RWF_NOWAIT`) and
    /// sent. Otherwise the tile is read into the cache: at once when it can be read without waiting (page cache),
    /// else on a file thread, which reads the file this miss opened (not the name again). A tile made from a stored
    /// pyramid's pixels is not made if `job`, and every other request's for it, was cancelled before a thread took it.
    package func miss(
        _ key: TileKey, of image: CatalogImage, job: RenderJob? = nil, onRead: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void
    ) -> Miss {
        let file = openFiles.file(for: key, of: image, maxBytes: store.maxTileBytes)
        if let file, !store.cache.admits(key, cost: file.cost) {
            switch usesCachestat ? file.isInPageCache : nil {
            case true?:
                store.countFileSend()
                return .sendFile(file)
            case nil:
                // Errors (a file changed while read) and a file not all in memory take the usual path below.
                if let read = try? file.readIfCached() {
                    store.countFileSend()
                    return .read(.success(read))
                }
            case false?:
                break
            }
        }
        switch store.loadNow(key, of: image, opened: file, job: job, onResult: onRead) {
        case .now(let result): return .read(result)
        case .reading: return .reading
        case .joined: return .joined
        }
    }
}
