import Dispatch
import HTTPCore
import Synchronization

extension TileSource {
    /// Tile `key` of `image` through ``fetch(_:of:onResult:)``, waited for on this thread: for a source read over the
    /// network, where a caller on a file thread needs a tile now (a tile made from others, an IIIF region). Never on an
    /// event loop, whose own work the fetch may need.
    ///
    /// - Precondition: the source fetches (its `fetch` returns `true`).
    func fetchedNow(_ key: TileKey, of image: CatalogImage) throws -> LoadedFile {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<LoadedFile, any Error>?>(nil)
        let fetching = fetch(key, of: image) { result in
            outcome.withLock { $0 = result }
            done.signal()
        }
        precondition(fetching, "fetchedNow(_:of:) is for a source that fetches")
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}
