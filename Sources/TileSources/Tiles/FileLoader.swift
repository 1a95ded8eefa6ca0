import CFileIO
import Glibc
import HTTPCore
import NIOCore

/// Reads whole files into ``LoadedFile``s with plain POSIX calls, refusing any whose real path leaves a given
/// folder (``PathContainment`` decides that).
///
/// Two ways: ``load(_:inside:maxBytes:)`` blocks (thread pools only), ``loadIfCached(_:inside:maxBytes:)`` never
/// waits for the disk (event loops may call it: it gives up when the bytes are not in the page cache).
package enum FileLoader {
    /// Reads the regular file at `path` whole, with its size-and-mtime entity tag (see
    /// ``LoadedFile/writeHead(into:size:seconds:nanoseconds:)``).
    /// Blocking: call it from a thread pool, never an event loop.
    ///
    /// - Parameters:
    ///   - root: A real path (see ``PathContainment/realPath(_:)``); the file's real path must be inside it, so a symlink that
    ///     points out of it is refused as ``FileLoadError/Kind/outsideRoot``.
    ///   - maxBytes: Files larger than this are refused.
    /// - Throws: ``FileLoadError``.
    package static func load(_ path: String, inside root: String, maxBytes: Int) throws(FileLoadError) -> LoadedFile {
        if let file = try loadDirect(path, inside: root, maxBytes: maxBytes, pageCacheOnly: false) {
            return file
        }
        return try loadResolved(path, inside: root, maxBytes: maxBytes)
    }

    /// Reads the regular file at `path` whole if that needs no disk access: its bytes are in the page cache.
    /// For event loops: a handful of system calls (open, fstat, one readlink of `/proc/self/fd`, a `preadv2` with
    /// `RWF_NOWAIT`, close), none of which waits for the device's data.
    ///
    /// - Returns: The file, or `nil` when it would have to wait for the disk or cannot be checked cheaply (its last
    ///   component is a symlink; no `/proc`): then ``load(_:inside:maxBytes:)`` on a thread pool decides.
    /// - Throws: ``FileLoadError`` when the answer is certain: no such file, not a regular file, outside `root`,
    ///   too large.
    package static func loadIfCached(_ path: String, inside root: String, maxBytes: Int) throws(FileLoadError) -> LoadedFile? {
        try loadDirect(path, inside: root, maxBytes: maxBytes, pageCacheOnly: true)
    }

    /// Reads tile file `{column}_{row}.{format}` of the level folder open as `directory` (see ``LevelDirectories``):
    /// one `openat` of the bare name with `O_NOFOLLOW`, so it cannot leave the checked folder; no string is built.
    /// With `pageCacheOnly` it never waits for the disk.
    ///
    /// - Returns: The file; ``TileRead/notInMemory`` (only with `pageCacheOnly`); or ``TileRead/askByPath`` when
    ///   the careful path must decide (the name is a symlink, or the folder was removed since it was opened).
    /// - Throws: ``FileLoadError`` when the answer is certain: not a regular file, too large, unreadable.
    package static func loadTile(
        column: Int32, row: Int32, format: String.UTF8View, in directory: Int32, maxBytes: Int, pageCacheOnly: Bool
    ) throws(FileLoadError) -> TileRead {
        let descriptor = openTile(column: column, row: row, format: format, in: directory)
        guard descriptor >= 0 else { return .askByPath }
        defer { close(descriptor) }
        guard let file = try readOpened(descriptor, maxBytes: maxBytes, pageCacheOnly: pageCacheOnly) else { return .notInMemory }
        return .loaded(file)
    }

    /// Opens tile file `{column}_{row}.{format}` of the level folder open as `directory`: one `openat` of the bare name
    /// (built on the stack) with `O_NOFOLLOW`, so it cannot leave that checked folder. Returns the descriptor, or -1
    /// with `errno` set.
    package static func openTile(column: Int32, row: Int32, format: String.UTF8View, in directory: Int32) -> Int32 {
        TileFileName.withCString(column: column, row: row, format: format) { name in
            // O_NONBLOCK: a FIFO must not hang the open; it changes nothing for regular files.
            openat(directory, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        }
    }

    /// What ``loadTile(column:row:format:in:maxBytes:pageCacheOnly:)`` found.
    package enum TileRead {
        /// The tile, read.
        case loaded(LoadedFile)
        /// Reading would wait for the disk.
        case notInMemory
        /// Not decided here: load it by path.
        case askByPath
    }

    /// Opens `path` without following a final symlink and checks the opened file's real path, which costs one
    /// `readlink` instead of `realpath`'s walk of every component. `nil`: use ``loadResolved(_:inside:maxBytes:)``
    /// (or, with `pageCacheOnly`, the bytes are not all in memory).
    private static func loadDirect(_ path: String, inside root: String, maxBytes: Int, pageCacheOnly: Bool) throws(FileLoadError)
        -> LoadedFile?
    {
        // O_NONBLOCK: a FIFO must not hang the open; it changes nothing for regular files.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            switch errno {
            case ENOENT, ENOTDIR: throw FileLoadError(kind: .notFound, message: "no such file")
            default: return nil  // ELOOP: a symlink, which realpath must judge; others: let the slow path say.
            }
        }
        defer { close(descriptor) }
        switch PathContainment.isInside(descriptor: descriptor, root: root) {
        case true: break
        case false: throw FileLoadError(kind: .outsideRoot, message: "the file resolves outside the served folder")
        case nil: return nil
        }
        return try readOpened(descriptor, maxBytes: maxBytes, pageCacheOnly: pageCacheOnly)
    }

    /// The careful path: `realpath` first, then open the resolved file.
    private static func loadResolved(_ path: String, inside root: String, maxBytes: Int) throws(FileLoadError) -> LoadedFile {
        guard let resolved = PathContainment.realPath(path) else {
            throw FileLoadError(kind: .notFound, message: "no such file")
        }
        guard PathContainment.isInside(resolved, root: root) else {
            throw FileLoadError(kind: .outsideRoot, message: "the file resolves outside the served folder")
        }
        let descriptor = open(resolved, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            throw FileLoadError(kind: .notFound, message: "the file cannot be opened")
        }
        defer { close(descriptor) }
        return try readOpened(descriptor, maxBytes: maxBytes, pageCacheOnly: false)!
    }

    /// Reads the open `descriptor` whole if it is a regular file of at most `maxBytes` bytes, into a buffer laid
    /// out as ``LoadedFile`` expects; with `pageCacheOnly`, `nil` as soon as a read would wait for the disk.
    /// Reads at explicit offsets: the descriptor's file position is neither used nor moved (it may be shared).
    package static func readOpened(_ descriptor: Int32, maxBytes: Int, pageCacheOnly: Bool) throws(FileLoadError) -> LoadedFile? {
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw FileLoadError(kind: .notFound, message: "not a regular file")
        }
        let size = Int(status.st_size)
        guard size <= maxBytes else {
            throw FileLoadError(kind: .unreadable, message: "the file is larger than \(maxBytes) bytes")
        }
        return try readOpened(descriptor, size: size, modified: status.st_mtim, pageCacheOnly: pageCacheOnly)
    }

    /// Reads the open regular file `descriptor`, whose `size` and modification time `modified` the caller got from
    /// `fstat`, like ``readOpened(_:maxBytes:pageCacheOnly:)`` but without asking again.
    package static func readOpened(_ descriptor: Int32, size: Int, modified: timespec, pageCacheOnly: Bool) throws(FileLoadError)
        -> LoadedFile?
    {
        try readRegion(
            descriptor, offset: 0, size: size, tag: (Int(modified.tv_sec), Int(modified.tv_nsec)), pageCacheOnly: pageCacheOnly)
    }

    /// Reads `size` bytes at `offset` of the open regular file `descriptor` (a tile file, or a tile inside an archive)
    /// into a ``LoadedFile`` whose entity tag is made of `size` and the two numbers of `tag` (a file's modification
    /// time; for an archive's tile, the archive's time in seconds and the tile's offset); with `pageCacheOnly`, `nil`
    /// as soon as a read would wait for the disk.
    package static func readRegion(_ descriptor: Int32, offset: Int, size: Int, tag: (seconds: Int, fraction: Int), pageCacheOnly: Bool)
        throws(FileLoadError) -> LoadedFile?
    {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(LoadedFile.maxHeadLength + size)
        let etagLineLength = LoadedFile.writeHead(into: &buffer, size: size, seconds: tag.seconds, nanoseconds: tag.fraction)
        let bodyOffset = buffer.writerIndex
        guard try append(descriptor, offset: offset, size: size, to: &buffer, pageCacheOnly: pageCacheOnly) else { return nil }
        return LoadedFile(preparedBuffer: buffer, etagLineLength: etagLineLength, bodyOffset: bodyOffset)
    }

    /// ``readRegion(_:offset:size:tag:pageCacheOnly:)`` after `head`, the `ETag` and `Content-Length` lines already
    /// prepared for those bytes (an ``OpenFile``'s, whose `ETag` line is `etagLineLength` bytes long): copied, not
    /// formatted again.
    package static func readRegion(
        _ descriptor: Int32, offset: Int, size: Int, head: ByteBuffer, etagLineLength: Int, pageCacheOnly: Bool
    ) throws(FileLoadError) -> LoadedFile? {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(head.readableBytes + size)
        buffer.writeImmutableBuffer(head)
        let bodyOffset = buffer.writerIndex
        guard try append(descriptor, offset: offset, size: size, to: &buffer, pageCacheOnly: pageCacheOnly) else { return nil }
        return LoadedFile(preparedBuffer: buffer, etagLineLength: etagLineLength, bodyOffset: bodyOffset)
    }

    /// Reads `size` bytes at `offset` of the open regular file `descriptor` into a ``LoadedFile`` whose body is
    /// `prefix` followed by them, with the entity tag `etag` (quotes included); with `pageCacheOnly`, `nil` as soon as
    /// a read would wait for the disk. (A TIFF's JPEG tile: the level's tables, then the tile from the file.)
    package static func readRegion(_ descriptor: Int32, offset: Int, size: Int, after prefix: ByteBuffer, etag: String, pageCacheOnly: Bool)
        throws(FileLoadError) -> LoadedFile?
    {
        var (buffer, etagLineLength) = LoadedFile.head(of: prefix.readableBytes + size, etag: etag, reservingBody: true)
        let bodyOffset = buffer.writerIndex
        buffer.writeImmutableBuffer(prefix)
        guard try append(descriptor, offset: offset, size: size, to: &buffer, pageCacheOnly: pageCacheOnly) else { return nil }
        return LoadedFile(preparedBuffer: buffer, etagLineLength: etagLineLength, bodyOffset: bodyOffset)
    }

    /// Appends `size` bytes at `offset` of `descriptor` to `buffer`; false when `pageCacheOnly` and a read would wait.
    private static func append(_ descriptor: Int32, offset: Int, size: Int, to buffer: inout ByteBuffer, pageCacheOnly: Bool)
        throws(FileLoadError) -> Bool
    {
        var outcome = FileReads.Outcome.complete
        if size > 0 {
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { destination in
                let (done, result) = FileReads.readFully(
                    descriptor, into: destination.baseAddress!, at: offset, size: size, pageCacheOnly: pageCacheOnly)
                outcome = result
                return done
            }
        }
        switch outcome {
        case .complete: return true
        case .wouldBlock: return false
        case .shortOrFailed: throw FileLoadError(kind: .unreadable, message: "the file changed while it was read")
        }
    }
}
