import CFileIO
import Glibc
import Synchronization

/// Open descriptors of one pyramid's level folders (`{name}_files/{level}`), opened on first use and checked to
/// lie inside ROOT then, so a tile is opened with one `openat` of its bare file name — no path walk, no `realpath`
/// — and with `O_NOFOLLOW`, so nothing below a checked folder can lead out of ROOT.
///
/// A level whose folder cannot be opened or checked (missing, not a folder, outside ROOT, out of descriptors) is
/// remembered as unusable: its tiles take ``FileLoader/load(_:inside:maxBytes:)``'s careful path. The descriptors
/// are closed when the catalog entry goes away.
final class LevelDirectories: Sendable {
    private static let unopened: Int32 = -2
    private static let unusable: Int32 = -1
    private let filesDirectory: String
    private let root: String
    private let descriptors: Mutex<[Int32]>

    /// The levels `0...maxLevel` of the tiles folder `filesDirectory` (a real path), whose files must stay inside
    /// `root` (a real path).
    init(filesDirectory: String, root: String, maxLevel: Int) {
        self.filesDirectory = filesDirectory
        self.root = root
        descriptors = Mutex(Array(repeating: Self.unopened, count: maxLevel + 1))
    }

    deinit {
        descriptors.withLock { descriptors in
            for descriptor in descriptors where descriptor >= 0 { close(descriptor) }
        }
    }

    /// The open folder of `level`, or `nil` to use the careful path. Opens it the first time (a metadata lookup).
    func descriptor(level: Int) -> Int32? {
        descriptors.withLock { descriptors in
            guard descriptors.indices.contains(level) else { return nil }
            if descriptors[level] == Self.unopened {
                descriptors[level] = open(level)
            }
            return descriptors[level] >= 0 ? descriptors[level] : nil
        }
    }

    private func open(_ level: Int) -> Int32 {
        let descriptor = Glibc.open("\(filesDirectory)/\(level)", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return Self.unusable }
        guard root.withCString({ tiler_fd_is_inside(descriptor, $0, strlen($0)) }) == 1 else {
            close(descriptor)
            return Self.unusable
        }
        return descriptor
    }
}
