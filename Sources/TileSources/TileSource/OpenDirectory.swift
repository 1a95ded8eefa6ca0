import Glibc

/// An open folder descriptor owned by reference: it is closed when the last reference goes, never before. So a
/// descriptor evicted from ``LevelDirectoryCache`` while another thread is in `openat` on it stays open until that
/// thread lets go of it — the descriptor number cannot be reused under it for some other file.
package final class OpenDirectory: Sendable {
    /// The descriptor (`O_DIRECTORY`), valid for as long as this object lives.
    package let descriptor: Int32

    /// Takes ownership of `descriptor` (≥ 0), which ``deinit`` closes.
    package init(owning descriptor: Int32) {
        precondition(descriptor >= 0, "an OpenDirectory needs an open descriptor")
        self.descriptor = descriptor
    }

    /// Opens the folder at `path` (following symlinks) for `openat`; `nil` with `errno` set when it cannot be opened
    /// or is not a folder. One `open`.
    package convenience init?(path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        self.init(owning: descriptor)
    }

    deinit {
        close(descriptor)
    }
}
