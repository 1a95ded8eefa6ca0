import Glibc

/// What tells whether a folder's entries may have changed since it was last listed: its device and inode (a folder
/// replaced by another) and its modification and status-change times, in nanoseconds. Creating, removing or
/// renaming an entry sets both times.
package struct FolderStamp: Hashable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    /// `st_mtim`, in nanoseconds since the epoch.
    package var modified: Int64
    /// `st_ctim`, in nanoseconds since the epoch.
    package var changed: Int64

    /// The stamp of the folder at `path` (not following a final symlink: the catalog never walks into one), or
    /// `nil` when there is no folder there. One `lstat`.
    package init?(path: String) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return nil }
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        changed = Int64(status.st_ctim.tv_sec) * 1_000_000_000 + Int64(status.st_ctim.tv_nsec)
    }
}
