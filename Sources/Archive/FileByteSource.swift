import Glibc

/// An archive open as a file descriptor, read with `pread` (the descriptor's offset is not moved, so one descriptor
/// serves any number of threads). The descriptor stays the caller's: it is not closed here.
public struct FileByteSource: ArchiveByteSource, Sendable {
    /// The open file.
    public let fd: Int32
    /// The file's size in bytes when the source was made (`fstat`).
    public let size: UInt64
    /// The file's name in errors.
    public let label: String

    /// The file open as `fd`; `label` names it in errors.
    ///
    /// - Throws: ``ArchiveError`` when `fstat` fails.
    public init(fd: Int32, label: String) throws(ArchiveError) {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw ArchiveError("\(label): cannot read", errno: errno) }
        self.fd = fd
        self.size = UInt64(status.st_size)
        self.label = label
    }

    /// `count` bytes at `offset` with as many `pread`s as it takes. - Complexity: O(`count`).
    public func read(at offset: UInt64, count: Int) throws(ArchiveError) -> [UInt8] {
        try ZIPDirectory.read(fd, at: offset, count: count, label: label)
    }
}
