import Archive
import Glibc
import TileGeometry

/// A pyramid in one stored ZIP (an SZI), served in place: the archive open once, its central directory read once
/// into ``SZIArchive``'s compact index, and each tile's bytes read or sent (`sendfile`) straight from their offset.
///
/// Bound to one version of the file: the descriptor stays on the inode that was indexed (a replaced archive gets a
/// new catalog entry), and every read first checks, with one `fstat`, that the file still has the size and time it
/// was indexed with, so a file rewritten in place is never served with a stale index.
final class ArchiveTiles: Sendable {
    /// The index of the archive's tiles.
    let index: SZIArchive
    /// The archive's real path.
    let path: String
    private let descriptor: Int32
    private let seconds: Int
    private let nanoseconds: Int

    /// Opens and indexes the archive at `path` (a real path).
    ///
    /// - Throws: ``ArchiveError`` with one line when it cannot be opened or is not a sound SZI.
    /// - Complexity: O(n log n) for n entries (see ``SZIArchive``).
    init(path: String) throws(ArchiveError) {
        // O_NONBLOCK: a FIFO must not hang the open; it changes nothing for regular files.
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw ArchiveError("\(path): cannot open", errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw ArchiveError("\(path): not a regular file")
        }
        do throws(ArchiveError) {
            index = try SZIArchive(fd: descriptor, label: path)
        } catch {
            close(descriptor)
            throw error
        }
        self.path = path
        self.descriptor = descriptor
        self.seconds = Int(status.st_mtim.tv_sec)
        self.nanoseconds = Int(status.st_mtim.tv_nsec)
    }

    deinit {
        close(descriptor)
    }

    /// Whether the open file still has the size and modification time it was indexed with. One `fstat`.
    private var isCurrent: Bool {
        var status = stat()
        return fstat(descriptor, &status) == 0 && UInt64(status.st_size) == index.fileSize && Int(status.st_mtim.tv_sec) == seconds
            && Int(status.st_mtim.tv_nsec) == nanoseconds
    }

    /// Where tile `address` lies, or a ``FileLoadError`` when the archive lacks it, holds a larger one than
    /// `maxBytes`, or has changed since it was indexed.
    private func place(_ address: TileAddress, maxBytes: Int) throws(FileLoadError) -> (offset: UInt64, size: Int) {
        guard let place = index.tile(level: Int(address.level), column: Int(address.column), row: Int(address.row)) else {
            throw FileLoadError(kind: .notFound, message: "no such tile in the archive")
        }
        guard place.size <= maxBytes else { throw FileLoadError(kind: .unreadable, message: "the tile is larger than \(maxBytes) bytes") }
        guard isCurrent else { throw FileLoadError(kind: .unreadable, message: "the archive changed since it was indexed") }
        return place
    }

    /// Reads tile `address` into a ``LoadedFile``; with `pageCacheOnly`, nil when that would wait for the disk.
    ///
    /// - Throws: ``FileLoadError``: `.notFound` for a tile the archive lacks.
    func read(_ address: TileAddress, maxBytes: Int, pageCacheOnly: Bool) throws(FileLoadError) -> LoadedFile? {
        let place = try place(address, maxBytes: maxBytes)
        return try FileLoader.readRegion(
            descriptor, offset: Int(place.offset), size: place.size, tag: (seconds, Int(place.offset)), pageCacheOnly: pageCacheOnly)
    }

    /// Tile `address` as an ``OpenTile`` to send with `sendfile`: the archive's descriptor duplicated (the tile owns
    /// and closes its copy), the tile's offset and size. Nil when the tile cannot be had so (the caller then reads it,
    /// which gives the right error).
    func open(_ address: TileAddress, maxBytes: Int) -> OpenTile? {
        guard let place = try? place(address, maxBytes: maxBytes) else { return nil }
        let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { return nil }
        var modified = timespec()
        modified.tv_sec = seconds
        modified.tv_nsec = nanoseconds
        return OpenTile(
            descriptor: copy, offset: Int(place.offset), size: place.size, fileSize: Int(index.fileSize), modified: modified,
            tag: (seconds, Int(place.offset)))
    }
}
