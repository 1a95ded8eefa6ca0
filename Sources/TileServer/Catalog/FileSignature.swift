import Glibc

/// What identifies a version of a file: size, modification time, inode and device.
struct FileSignature: Hashable, Sendable {
    var size: Int
    var seconds: Int
    var nanoseconds: Int
    var inode: UInt64
    var device: UInt64
}

extension FileSignature {
    /// The signature of the file at `path` (following symlinks), or `nil` if it is not a regular file.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        self.init(
            size: Int(status.st_size), seconds: Int(status.st_mtim.tv_sec), nanoseconds: Int(status.st_mtim.tv_nsec),
            inode: UInt64(status.st_ino), device: UInt64(status.st_dev))
    }

    /// The signature of the directory at `path` (following symlinks), or `nil` if it is not a directory. Its
    /// modification time changes whenever an entry is added, removed or renamed over.
    init?(directory path: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return nil }
        self.init(
            size: Int(status.st_size), seconds: Int(status.st_mtim.tv_sec), nanoseconds: Int(status.st_mtim.tv_nsec),
            inode: UInt64(status.st_ino), device: UInt64(status.st_dev))
    }

    /// Whether `path` is a directory (following symlinks).
    static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
