import CFileIO
import Glibc
import NIOCore

/// A file (or a part of one) kept open to be sent with `sendfile` — the kernel copies the page cache to the socket;
/// the bytes never enter the process — with its response header lines prepared once: a whole file, or `size` bytes at
/// an offset of a larger one (an entry of an archive), optionally after a few bytes of ``prefix`` sent from memory
/// first (a JPEG's SOI and tables before the entropy-coded data a container stores).
///
/// Immutable. The descriptor is closed when the last reference goes (a table of open files, or a response still
/// being written).
package final class OpenFile: Sendable {
    /// The open file; sent with `FileRegion`s.
    package let handle: NIOFileHandle
    /// Bytes sent before the file's (empty but for a TIFF's JPEG tiles).
    package let prefix: ByteBuffer
    /// Where the file's bytes this response sends start in the file (0: a tile file of its own), in bytes.
    package let offset: Int
    /// The size in bytes of what the response stands for: ``prefix`` and the file's bytes (a tile file: the whole file).
    package let size: Int
    /// The entity tag, quotes included, when it is not made of the size and ``tag`` (a TIFF's tiles: as when read).
    package let etagText: String?
    /// The open file's size when opened, in bytes (a tile file: ``size``).
    private let fileSize: Int
    /// The two numbers of the entity tag besides the size (the modification time's seconds and nanoseconds for a file of its own).
    package let tag: (seconds: Int, fraction: Int)
    /// `ETag: "…"\r\nContent-Length: N\r\n\r\n`, as in ``LoadedFile``.
    package let head: ByteBuffer
    /// The length of the `ETag` line at the start of ``head``.
    package let etagLineLength: Int
    /// The open descriptor (owned by ``handle``).
    package let descriptor: Int32
    private let modified: timespec

    /// Takes `descriptor` (closed with this value) standing for the `size` bytes at `offset` of a file of `fileSize`
    /// bytes last modified at `modified`; the entity tag is made of `size` and `tag`.
    package init(descriptor: Int32, offset: Int, size: Int, fileSize: Int, modified: timespec, tag: (seconds: Int, fraction: Int)) {
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
    package init(descriptor: Int32, prefix: [UInt8], offset: Int, length: Int, fileSize: Int, modified: timespec, etag: String) {
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
    package var isCurrent: Bool {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return status.st_nlink > 0 && Int(status.st_size) == fileSize && status.st_mtim.tv_sec == modified.tv_sec
            && status.st_mtim.tv_nsec == modified.tv_nsec
    }

    /// What a cached copy would cost against the cache's budget: the header lines plus the body, in bytes.
    package var cost: Int { head.readableBytes + size }

    /// The entity tag with its quotes, as sent.
    package var etag: ByteBufferView { LoadedFile.etag(in: head, etagLineLength: etagLineLength) }

    /// The `ETag` line alone (for 304).
    package var etagLine: ByteBuffer { LoadedFile.etagLine(in: head, etagLineLength: etagLineLength) }

    /// Whether every byte is in the page cache, so that sending it cannot wait for the disk; `nil` when this kernel
    /// cannot tell (before Linux 6.5, or a seccomp filter): then treat it as not. One system call.
    package var isInPageCache: Bool? {
        switch tiler_is_range_in_page_cache(descriptor, off_t(offset), size - prefix.readableBytes) {
        case 1: true
        case 0: false
        default: nil
        }
    }
}
