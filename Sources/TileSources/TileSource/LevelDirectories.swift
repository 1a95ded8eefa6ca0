/// One pyramid's level folders (`{name}_files/{level}`), opened on demand through the server's shared
/// ``LevelDirectoryCache`` and checked then to lie inside ROOT, so a tile is opened with one `openat` of its bare
/// file name — no path walk, no `realpath` — and with `O_NOFOLLOW`, so nothing below a checked folder can lead out of
/// ROOT. Holds no descriptor itself: a catalog of any size costs at most the cache's capacity in descriptors.
///
/// A level whose folder cannot be opened or checked (missing, not a folder, outside ROOT, out of descriptors) gives
/// none: its tiles take ``FileLoader/load(_:inside:maxBytes:)``'s careful path.
package final class LevelDirectories: Sendable {
    private let image: Int
    private let filesDirectory: String
    private let root: String
    private let maxLevel: Int
    private let cache: LevelDirectoryCache

    /// The levels `0...maxLevel` of the tiles folder `filesDirectory` (a real path) of catalog entry `image`, whose
    /// files must stay inside `root` (a real path), opened through `cache`. Opens nothing yet.
    package init(image: Int, filesDirectory: String, root: String, maxLevel: Int, cache: LevelDirectoryCache) {
        self.image = image
        self.filesDirectory = filesDirectory
        self.root = root
        self.maxLevel = maxLevel
        self.cache = cache
    }

    /// The open folder of `level`, or `nil` to use the careful path. Keep the reference while using its descriptor.
    ///
    /// - Complexity: one lock when the folder is cached; else also one `open` and one `readlink` (see
    ///   ``LevelDirectoryCache/directory(image:level:path:root:)``).
    package func directory(level: Int) -> OpenDirectory? {
        guard level >= 0 && level <= maxLevel else { return nil }
        return cache.directory(image: image, level: level, path: "\(filesDirectory)/\(level)", root: root)
    }
}
