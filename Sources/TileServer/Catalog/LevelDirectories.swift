import Glibc

/// Open descriptors of one pyramid's level folders (`{name}_files/{level}`), opened when the catalog finds the
/// pyramid and checked then to lie inside ROOT, so a tile is opened with one `openat` of its bare file name — no
/// path walk, no `realpath` — and with `O_NOFOLLOW`, so nothing below a checked folder can lead out of ROOT.
/// Immutable after that: event loops read it without a lock.
///
/// A level whose folder cannot be opened or checked (missing, not a folder, outside ROOT, out of descriptors) has
/// none: its tiles take ``FileLoader/load(_:inside:maxBytes:)``'s careful path. The descriptors are closed when the
/// catalog entry goes away.
final class LevelDirectories: Sendable {
    private let descriptors: [Int32]

    /// Opens the levels `0...maxLevel` of the tiles folder `filesDirectory` (a real path) whose files must stay
    /// inside `root` (a real path). Blocking (metadata lookups): the catalog calls it on a file thread.
    init(filesDirectory: String, root: String, maxLevel: Int) {
        descriptors = (0...max(maxLevel, 0)).map { level in
            let descriptor = open("\(filesDirectory)/\(level)", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { return -1 }
            guard PathContainment.isInside(descriptor: descriptor, root: root) == true else {
                close(descriptor)
                return -1
            }
            return descriptor
        }
    }

    deinit {
        for descriptor in descriptors where descriptor >= 0 { close(descriptor) }
    }

    /// The open folder of `level`, or `nil` to use the careful path. O(1), no lock.
    func descriptor(level: Int) -> Int32? {
        guard descriptors.indices.contains(level), descriptors[level] >= 0 else { return nil }
        return descriptors[level]
    }
}
