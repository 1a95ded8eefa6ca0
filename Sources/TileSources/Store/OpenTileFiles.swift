import HTTPCore
import NIOCore
import TileCache

/// One event loop's table of open tile files, like nginx's `open_file_cache`: a miss that is sent from its file
/// (see ``TileLookup/miss(_:of:onRead:)``) skips `openat`, `fstat` and `close` when
/// the file was opened before. The least recently used file is closed when the table is full.
///
/// Staleness: like the tile cache, it trusts that a pyramid's tiles do not change in place (`tiler slice` replaces
/// a pyramid whole, which gives it a new catalog id); the files of removed or replaced pyramids are closed by
/// ``removeAll(images:)`` when the catalog notices.
///
/// Touched only on its event loop: no lock.
package final class OpenTileFiles {
    /// The most files held open.
    package let capacity: Int
    private var files: LRUCache<TileKey, OpenFile>

    /// Creates an empty table holding at most `capacity` files (0: none, every call of ``file(for:of:maxBytes:)``
    /// answers `nil`).
    package init(capacity: Int) {
        self.capacity = capacity
        self.files = LRUCache(budget: capacity)
    }

    /// Tile `key` of `image`, open: from the table if the file is unchanged (one `fstat`, see
    /// ``OpenFile/isCurrent``), or opened now (one `openat` and one `fstat`) and kept.
    ///
    /// - Returns: `nil` when the table is off or the source cannot open the tile to be sent from its file
    ///   (``TileSource/open(_:of:maxBytes:)``).
    /// - Complexity: O(1).
    package func file(for key: TileKey, of image: CatalogImage, maxBytes: Int) -> OpenFile? {
        guard capacity > 0 else { return nil }
        if let file = files.value(for: key) {
            if file.isCurrent { return file }
            files.removeValue(for: key)
        }
        guard let file = image.source.open(key, of: image, maxBytes: maxBytes) else { return nil }
        files.insert(file, for: key, cost: 1)
        return file
    }

    /// Closes the files of the given images (once no response is still sending them).
    ///
    /// - Complexity: O(n) for n open files.
    package func removeAll(images: Set<Int>) {
        guard !images.isEmpty else { return }
        let doomed = files.compactMap { images.contains($0.key.image) ? $0.key : nil }
        for key in doomed {
            files.removeValue(for: key)
        }
    }

    /// Closes every file (once no response is still sending it).
    package func removeAll() {
        files.removeAll()
    }
}
