/// The level folders (`{name}_files/{level}`) the server holds open, shared by every event loop and file thread, at
/// most ``capacity`` of them whatever the size of the catalog — like nginx's `open_file_cache max=`. A folder is
/// opened on its first tile request, checked then to lie inside ROOT (by the real path the kernel gives the
/// descriptor), and closed when it is the least recently used one and another needs its place.
///
/// Folders are handed out as ``OpenDirectory`` references: an evicted folder is closed only once the last caller
/// holding it is done with its `openat`. A folder that cannot be opened or checked (missing, not a folder, outside
/// ROOT, out of descriptors) is not cached and not remembered: its tiles take
/// ``FileLoader/load(_:inside:maxBytes:)``'s careful path, and the next request tries again.
///
/// Containment over time: ``dropOutside(root:)``, called at every rescan, re-checks each cached folder and drops
/// those that were moved out of ROOT.
package final class LevelDirectoryCache: Sendable {
    /// One level folder of one catalog entry.
    package struct Key: Hashable, Sendable {
        /// The ``CatalogImage/id``.
        package var image: Int
        /// The level.
        package var level: Int
    }

    private let folders: HeldOpenCache<Key, OpenDirectory>

    /// Creates an empty cache holding at most `capacity` (≥ 0) folders open.
    package init(capacity: Int) {
        folders = HeldOpenCache(capacity: capacity)
    }

    /// The most folders held open at once (0: none; every lookup answers `nil`).
    package var capacity: Int { folders.capacity }

    /// The number of folders open now. O(1), takes the lock.
    package var count: Int { folders.count }

    /// How many folders have been opened (and kept) so far: each is one `open` and one `readlink`.
    package var openCount: Int { folders.openCount }

    /// Level `level` of image `image`, whose folder is at `path` and must lie inside `root` (a real path): from the
    /// cache, marked most recently used, or opened now, checked and kept (evicting the least recently used folder
    /// when full). Hold the returned reference for as long as its ``OpenDirectory/descriptor`` is used.
    ///
    /// - Returns: `nil` when the folder cannot be opened or does not lie inside `root`, or when ``capacity`` is 0.
    /// - Complexity: O(1) (one lock) on a hit; on a miss also one `open` and one `readlink`, done outside the lock.
    package func directory(image: Int, level: Int, path: @autoclosure () -> String, root: String) -> OpenDirectory? {
        guard capacity > 0 else { return nil }
        return folders.value(for: Key(image: image, level: level)) { () -> OpenDirectory? in
            guard let opened = OpenDirectory(path: path()) else { return nil }
            // A folder that cannot be checked is not trusted: its tiles go the careful way.
            return PathContainment.isInside(descriptor: opened.descriptor, root: root) == true ? opened : nil
        }
    }

    /// Closes (once unused) the folders of the given images.
    ///
    /// - Complexity: O(n) in the folders held.
    package func removeAll(images: Set<Int>) {
        guard !images.isEmpty else { return }
        folders.removeAll { images.contains($0.image) }
    }

    /// Re-checks every folder held against `root` (a real path) and drops those no longer inside it (moved out, or
    /// not checkable); returns the ids of the images that lost one, whose open tile files should be closed too.
    ///
    /// - Complexity: O(n) `readlink`s for n folders held (at most ``capacity``), done outside the lock.
    package func dropOutside(root: String) -> Set<Int> {
        let outside = folders.held.filter { PathContainment.isInside(descriptor: $0.value.descriptor, root: root) != true }
        guard !outside.isEmpty else { return [] }
        folders.remove(outside)
        return Set(outside.map(\.key.image))
    }
}
