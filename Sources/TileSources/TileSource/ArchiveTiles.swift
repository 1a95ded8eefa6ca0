import Archive
import Glibc
import HTTPCore
import TileGeometry

/// A pyramid in one stored ZIP (an SZI), served in place: its central directory read once, when the catalog finds
/// the file, into ``SZIArchive``'s compact index, and each tile's bytes read or sent (`sendfile`) straight from their
/// offset.
///
/// The archive is closed again once indexed, and opened on its first tile request through the server's shared
/// ``StoredFileCache`` (closed when it is the least recently used file and another needs its place), so 10,000 SZIs
/// in ROOT cost no more descriptors than 10,000 folder pyramids; the index is kept meanwhile. The file opened must be
/// the one indexed (same device, inode, size and modification time): a replaced archive is refused, and gets a new
/// catalog entry at the next rescan. Every read first checks, with one `fstat`, that the open file still has the size
/// and time it was indexed with, so a file rewritten in place is never served with a stale index.
package final class ArchiveTiles: Sendable {
    /// The index of the archive's tiles.
    package let index: SZIArchive
    /// The archive's real path.
    package let path: String
    /// The catalog entry's ``CatalogImage/id`` (the shared cache's key).
    package let image: Int
    private let device: UInt64
    private let inode: UInt64
    private let seconds: Int
    private let nanoseconds: Int
    private let files: StoredFileCache

    /// Opens and indexes the archive at `path` (a real path) for catalog entry `image`, then closes it; tiles reopen
    /// it through `files`.
    ///
    /// - Throws: ``ArchiveError`` with one line when it cannot be opened or is not a sound SZI.
    /// - Complexity: O(n log n) for n entries (see ``SZIArchive``).
    package init(path: String, image: Int, files: StoredFileCache) throws(ArchiveError) {
        let opened = try ArchiveFile(path: path)
        var status = stat()
        guard fstat(opened.descriptor, &status) == 0 else { throw ArchiveError("\(path): cannot read its status", errno: errno) }
        index = try SZIArchive(fd: opened.descriptor, label: path)
        self.path = path
        self.image = image
        self.files = files
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
        seconds = Int(status.st_mtim.tv_sec)
        nanoseconds = Int(status.st_mtim.tv_nsec)
    }

    /// The archive, open: held by the shared cache, or opened now and checked to be the file indexed.
    private func opened() throws(FileLoadError) -> ArchiveFile {
        try files.archive(image: image) { () throws(FileLoadError) -> ArchiveFile in
            let file: ArchiveFile
            do throws(ArchiveError) {
                file = try ArchiveFile(path: path)
            } catch {
                throw FileLoadError(kind: .unreadable, message: "\(path) cannot be opened again: \(error.message)")
            }
            var status = stat()
            guard fstat(file.descriptor, &status) == 0, UInt64(status.st_dev) == device, UInt64(status.st_ino) == inode else {
                files.noteChangedFile()
                throw FileLoadError(kind: .unreadable, message: "\(path) was replaced since it was indexed")
            }
            return file
        }
    }

    /// Whether `file` still has the size and modification time the archive was indexed with. One `fstat`.
    private func isCurrent(_ file: ArchiveFile) -> Bool {
        var status = stat()
        return fstat(file.descriptor, &status) == 0 && UInt64(status.st_size) == index.fileSize && Int(status.st_mtim.tv_sec) == seconds
            && Int(status.st_mtim.tv_nsec) == nanoseconds
    }

    /// The open archive and where tile `address` lies in it, or a ``FileLoadError`` when the archive lacks it, holds
    /// a larger one than `maxBytes`, or has changed since it was indexed.
    private func place(_ address: TileAddress, maxBytes: Int) throws(FileLoadError) -> (file: ArchiveFile, offset: UInt64, size: Int) {
        guard let place = index.tile(level: Int(address.level), column: Int(address.column), row: Int(address.row)) else {
            throw FileLoadError(kind: .notFound, message: "no such tile in \(path)")
        }
        return try opened(place, maxBytes: maxBytes)
    }

    /// The open archive and the entry at `place`, checked as ``place(_:maxBytes:)`` checks a tile's.
    private func opened(_ place: (offset: UInt64, size: Int), maxBytes: Int) throws(FileLoadError) -> (file: ArchiveFile, offset: UInt64, size: Int) {
        guard place.size <= maxBytes else { throw FileLoadError(kind: .unreadable, message: "the tile is larger than \(maxBytes) bytes") }
        let file = try opened()
        guard isCurrent(file) else {
            files.noteChangedFile()
            throw FileLoadError(kind: .unreadable, message: "\(path) changed since it was indexed")
        }
        return (file, place.offset, place.size)
    }

    /// Reads tile `address` into a ``LoadedFile``; with `pageCacheOnly`, nil when that would wait for the disk.
    ///
    /// - Throws: ``FileLoadError``: `.notFound` for a tile the archive lacks.
    package func read(_ address: TileAddress, maxBytes: Int, pageCacheOnly: Bool) throws(FileLoadError) -> LoadedFile? {
        let place = try place(address, maxBytes: maxBytes)
        // The archive stays open (not closed by an eviction) until the read is done.
        return try withExtendedLifetime(place.file) { () throws(FileLoadError) in
            try FileLoader.readRegion(
                place.file.descriptor, offset: Int(place.offset), size: place.size, tag: (seconds, Int(place.offset)),
                pageCacheOnly: pageCacheOnly)
        }
    }

    /// The associated image of kind `kind` the archive keeps (``SZIArchive/associated``), read whole. Blocking: a
    /// render thread's, never an event loop's.
    ///
    /// - Throws: ``FileLoadError``: `.notFound` for a kind the archive does not keep.
    package func readAssociated(_ kind: String) throws(FileLoadError) -> LoadedFile {
        guard let entry = index.associated[kind] else { throw FileLoadError(kind: .notFound, message: "no \(kind) image in \(path)") }
        let place = try opened(entry, maxBytes: SZIArchive.maxAssociatedBytes)
        let file = try withExtendedLifetime(place.file) { () throws(FileLoadError) in
            try FileLoader.readRegion(
                place.file.descriptor, offset: Int(place.offset), size: place.size, tag: (seconds, Int(place.offset)), pageCacheOnly: false)
        }
        guard let file else { throw FileLoadError(kind: .unreadable, message: "\(path) could not be read") }
        return file
    }

    /// Tile `address` as an ``OpenFile`` to send with `sendfile`: the archive's descriptor duplicated (the tile owns
    /// and closes its copy), the tile's offset and size. Nil when the tile cannot be had so (the caller then reads it,
    /// which gives the right error).
    package func open(_ address: TileAddress, maxBytes: Int) -> OpenFile? {
        guard let place = try? place(address, maxBytes: maxBytes) else { return nil }
        let copy = withExtendedLifetime(place.file) { fcntl(place.file.descriptor, F_DUPFD_CLOEXEC, 0) }
        guard copy >= 0 else { return nil }
        var modified = timespec()
        modified.tv_sec = seconds
        modified.tv_nsec = nanoseconds
        return OpenFile(
            descriptor: copy, offset: Int(place.offset), size: place.size, fileSize: Int(index.fileSize), modified: modified,
            tag: (seconds, Int(place.offset)))
    }
}
