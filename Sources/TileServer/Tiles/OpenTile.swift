import CFileIO
import Glibc
import NIOCore

/// A tile file kept open to be sent with `sendfile` (the kernel copies the page cache to the socket; the bytes
/// never enter the process), with its response header lines prepared once. For a pyramid in an archive (an SZI), the
/// archive kept open, and where the tile's bytes lie in it; for a JPEG tile passed through from a pyramidal TIFF, the
/// TIFF kept open, where the tile lies in it, and the few hundred bytes sent before it (SOI and the level's tables).
///
/// Immutable; kept by one event loop's table (see ``OpenTileFiles``). The descriptor is closed when the last reference goes: the
/// loop's table, or a response still being written.
final class OpenTile: Sendable {
    /// The open file; sent with `FileRegion`s.
    let handle: NIOFileHandle
    /// Bytes sent before the file's (empty but for a TIFF's JPEG tiles).
    let prefix: ByteBuffer
    /// Where the file's bytes this response sends start in the file (0: a tile file of its own), in bytes.
    let offset: Int
    /// The size in bytes of what the response stands for: ``prefix`` and the file's bytes (a tile file: the whole file).
    let size: Int
    /// The entity tag, quotes included, when it is not made of the size and ``tag`` (a TIFF's tiles: as when read).
    private let etagText: String?
    /// The open file's size when opened, in bytes (a tile file: ``size``).
    private let fileSize: Int
    /// The two numbers of the entity tag besides the size (see ``FileLoader/readRegion(_:offset:size:tag:pageCacheOnly:)``).
    private let tag: (seconds: Int, fraction: Int)
    /// `ETag: "…"\r\nContent-Length: N\r\n\r\n`, as in ``LoadedFile``.
    let head: ByteBuffer
    /// The length of the `ETag` line at the start of ``head``.
    let etagLineLength: Int
    private let descriptor: Int32
    private let modified: timespec

    /// Opens tile file `{column}_{row}.{format}` of the level folder open as `directory` (see ``LevelDirectories``)
    /// with `O_NOFOLLOW`, so it cannot leave that checked folder.
    ///
    /// - Returns: `nil` when the name is missing, is a symlink (the path-based load judges those), is not a regular
    ///   file or is larger than `maxBytes`, or no descriptor is left: the caller reads the tile the usual way, which
    ///   gives the right answer or error.
    convenience init?(column: Int32, row: Int32, format: String.UTF8View, in directory: Int32, maxBytes: Int) {
        let descriptor = FileLoader.openTile(column: column, row: row, format: format, in: directory)
        guard descriptor >= 0 else { return nil }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int(status.st_size) <= maxBytes else {
            close(descriptor)
            return nil
        }
        self.init(
            descriptor: descriptor, offset: 0, size: Int(status.st_size), fileSize: Int(status.st_size), modified: status.st_mtim,
            tag: (Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec)))
    }

    /// Takes `descriptor` (closed with this value) standing for the `size` bytes at `offset` of a file of `fileSize`
    /// bytes last modified at `modified`; the entity tag is made of `size` and `tag`.
    init(descriptor: Int32, offset: Int, size: Int, fileSize: Int, modified: timespec, tag: (seconds: Int, fraction: Int)) {
        self.descriptor = descriptor
        self.prefix = ByteBuffer()
        self.offset = offset
        self.size = size
        self.fileSize = fileSize
        self.modified = modified
        self.tag = tag
        self.etagText = nil
        var head = ByteBuffer()
        head.reserveCapacity(LoadedFile.maxHeadLength)
        self.etagLineLength = LoadedFile.writeHead(into: &head, size: size, seconds: tag.seconds, nanoseconds: tag.fraction)
        self.head = head
        self.handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
    }

    /// Takes `descriptor` (closed with this value) standing for `prefix` followed by the `length` bytes at `offset` of
    /// a file of `fileSize` bytes last modified at `modified`, with the entity tag `etag` (quotes included).
    init(descriptor: Int32, prefix: [UInt8], offset: Int, length: Int, fileSize: Int, modified: timespec, etag: String) {
        self.descriptor = descriptor
        self.prefix = ByteBuffer(bytes: prefix)
        self.offset = offset
        self.size = prefix.count + length
        self.fileSize = fileSize
        self.modified = modified
        self.tag = (Int(modified.tv_sec), Int(modified.tv_nsec))
        self.etagText = etag
        let head = LoadedFile(headOf: size, etag: etag)
        self.etagLineLength = head.etagLineLength
        self.head = head.buffer
        self.handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
    }

    deinit {
        try? handle.close()
    }

    /// Whether the file is still as it was opened: not unlinked, same size and modification time. One `fstat`.
    ///
    /// Tiles are not meant to change in place, but a file truncated under `sendfile` would leave the response
    /// short of its `Content-Length`: checked before every send, such a file is reopened instead.
    var isCurrent: Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return status.st_nlink > 0 && Int(status.st_size) == fileSize && status.st_mtim.tv_sec == modified.tv_sec
            && status.st_mtim.tv_nsec == modified.tv_nsec
    }

    /// What a cached copy would cost against the cache's budget: the header lines plus the body, in bytes.
    var cost: Int { head.readableBytes + size }

    /// The entity tag with its quotes, as sent.
    var etag: ByteBufferView { LoadedFile.etag(in: head, etagLineLength: etagLineLength) }

    /// The `ETag` line alone (for 304).
    var etagLine: ByteBuffer { LoadedFile.etagLine(in: head, etagLineLength: etagLineLength) }

    /// Whether every byte is in the page cache, so that sending it cannot wait for the disk; `nil` when this kernel
    /// cannot tell (before Linux 6.5, or a seccomp filter): then treat it as not. One system call.
    var isInPageCache: Bool? {
        switch tiler_is_range_in_page_cache(descriptor, off_t(offset), size - prefix.readableBytes) {
        case 1: true
        case 0: false
        default: nil
        }
    }

    /// Reads the whole file into a ``LoadedFile`` (for the cache) from the open descriptor, waiting for the disk if
    /// need be: for file threads, which are handed the file a miss opened rather than opening it again. Its size and
    /// time are those checked by the last ``isCurrent``.
    func read() throws(FileLoadError) -> LoadedFile {
        // Without pageCacheOnly the read never gives up for want of memory: nil cannot come back.
        try read(pageCacheOnly: false)!
    }

    /// Reads the whole file into a ``LoadedFile`` (for the cache) from the open descriptor, without waiting for the
    /// disk; `nil` if that would wait. Its size and time are those checked by the last ``isCurrent`` (no `fstat`).
    func readIfCached() throws(FileLoadError) -> LoadedFile? {
        try read(pageCacheOnly: true)
    }

    private func read(pageCacheOnly: Bool) throws(FileLoadError) -> LoadedFile? {
        guard let etagText else {
            return try FileLoader.readRegion(descriptor, offset: offset, size: size, tag: tag, pageCacheOnly: pageCacheOnly)
        }
        return try FileLoader.readRegion(
            descriptor, offset: offset, size: size - prefix.readableBytes, after: prefix, etag: etagText, pageCacheOnly: pageCacheOnly)
    }
}
