import Dispatch
import HTTPCore
import Synchronization

extension TileStore {
    /// The tiles `keys` of `image`, in order: each from the cache, or loaded like a tile request's miss (one read
    /// shared with concurrent requests for the same tile, on the file thread pool). Blocks until all are there.
    ///
    /// Blocking: call it from a thread that may wait (the IIIF render pool), never an event loop or a file-pool
    /// thread.
    ///
    /// - Returns: The tiles; nil for one a folder pyramid or an SZI does not have (its file or entry missing).
    /// - Throws: the first failed tile's error (``FileLoadError``, or `CancellationError` while shutting down).
    package func files(_ keys: [TileKey], of image: CatalogImage) throws -> [LoadedFile?] {
        var found = keys.map { cached($0) }
        let missing = found.indices.filter { found[$0] == nil }
        guard !missing.isEmpty else { return found }
        let group = DispatchGroup()
        let loaded = Mutex<[Int: Result<LoadedFile, any Error>]>([:])
        for index in missing {
            group.enter()
            load(keys[index], of: image) { result in
                loaded.withLock { $0[index] = result }
                group.leave()
            }
        }
        group.wait()
        let results = loaded.withLock { $0 }
        // A folder or an SZI may lack tiles it never had (``TileSource/mayLackTiles``): nil.
        let mayLack = image.source.mayLackTiles
        for index in missing {
            do {
                found[index] = try results[index]!.get()
            } catch let error as FileLoadError where error.kind == .notFound && mayLack {
                found[index] = nil
            }
        }
        return found
    }
}
