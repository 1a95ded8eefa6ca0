import CFileIO
import Glibc

/// Whether a path or an open file lies inside a folder, by real paths: what keeps every file the server reads inside
/// ROOT (or the viewer's folder) whatever symlinks lie on the way. Separate from reading: the catalog, the level
/// folders, the viewer's files and the file loader all ask it.
package enum PathContainment {
    /// `realpath(3)` of `path`, or `nil` if it does not resolve.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` (a real path) is `root` or inside it.
    package static func isInside(_ path: String, root: String) -> Bool {
        path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
    }

    /// Whether the file open as `descriptor` is, by the real path the kernel gives it, `root` (a real path) or inside
    /// it; `nil` when that cannot be told (no `/proc`). One `readlink`.
    package static func isInside(descriptor: Int32, root: String) -> Bool? {
        switch root.withCString({ tiler_fd_is_inside(descriptor, $0, strlen($0)) }) {
        case 1: true
        case 0: false
        default: nil
        }
    }
}
