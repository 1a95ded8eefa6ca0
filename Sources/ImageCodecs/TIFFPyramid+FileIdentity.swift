#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TIFFPyramid {
    /// What identifies one version of a file: device, inode, size and modification time. A file replaced (renamed over)
    /// or rewritten in place gets a different identity.
    public struct FileIdentity: Sendable, Hashable {
        /// `st_dev`.
        public let device: UInt64
        /// `st_ino`.
        public let inode: UInt64
        /// Bytes.
        public let size: Int
        /// `st_mtim`, in nanoseconds since the epoch.
        public let modified: Int64
        let isRegularFile: Bool

        /// The identity `status` (from `stat` or `fstat`) gives.
        public init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int(status.st_size)
            modified = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
            isRegularFile = status.st_mode & S_IFMT == S_IFREG
        }

        /// The identity of no file, for a TIFF of `size` bytes read through a ``TIFFByteSource``: device, inode and
        /// time 0, not a regular file.
        init(sourceOfSize size: Int) {
            device = 0
            inode = 0
            self.size = size
            modified = 0
            isRegularFile = false
        }

        /// The identity of the file open on `descriptor`, or nil when fstat fails.
        init?(descriptor: Int32) {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { return nil }
            self.init(status)
        }

        /// The identity of the file at `path` now (following symlinks), or nil when it cannot be stat'ed.
        public init?(path: String) {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            self.init(status)
        }
    }
}
