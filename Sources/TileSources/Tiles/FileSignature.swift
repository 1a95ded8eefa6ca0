import Glibc

/// What identifies a version of a file: size, modification time, inode and device.
package struct FileSignature: Hashable, Sendable {
    package var size: Int
    package var seconds: Int
    package var nanoseconds: Int
    package var inode: UInt64
    package var device: UInt64
}

extension FileSignature {
    /// The signature of the file at `path` (following symlinks), or `nil` if it is not a regular file.
    package init?(path: String) {
        self.init(path: path, type: S_IFREG)
    }

    /// The signature of the directory at `path` (following symlinks), or `nil` if it is not a directory. Its
    /// modification time changes whenever an entry is added, removed or renamed over.
    package init?(directory path: String) {
        self.init(path: path, type: S_IFDIR)
    }

    /// The signature of what is at `path` (following symlinks), or `nil` unless it is of file type `type` (`S_IFREG`,
    /// `S_IFDIR`). One stat.
    private init?(path: String, type: mode_t) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == type else { return nil }
        self.init(
            size: Int(status.st_size), seconds: Int(status.st_mtim.tv_sec), nanoseconds: Int(status.st_mtim.tv_nsec),
            inode: UInt64(status.st_ino), device: UInt64(status.st_dev))
    }

    /// Whether `path` is a directory (following symlinks).
    package static func isDirectory(_ path: String) -> Bool {
        FileSignature(directory: path) != nil
    }
}
