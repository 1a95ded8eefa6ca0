import Archive
import CFileIO
import Foundation
import ImageCodecs
import Synchronization
import TileGeometry

/// Collects the tiles of a pyramidal TIFF as the workers finish them: each stored level's tiles appended to a spool
/// file of their own in the staging folder (offsets reserved under a lock, one `pwrite` each); JPEG tiles' tables
/// stripped into one shared `JPEGTables`, WebP and Deflate tiles (``TIFFTileCompression``) stored as encoded.
/// ``finish(into:bigTIFF:)`` then writes the TIFF (``TIFFFileLayout``): every IFD first, then the levels' tile data,
/// smallest level first. The finest level — three quarters of the data — is last, so its spool becomes the TIFF: the
/// header, IFDs and smaller levels are inserted in front of its tiles (`FALLOC_FL_INSERT_RANGE`, which moves no data)
/// and it is linked to the TIFF's name. Where the file system cannot insert, every spool is copied into a new file in
/// the kernel; that copy, serial at the end of the slice, cost the 32768² sample 0.5–1.2 s of CPU (`perf`).
///
/// Stored levels are the Deep Zoom levels from the finest down to the first that fits in one tile; tiles of smaller
/// levels are not stored (a reader makes them from that one). Memory: 12 bytes per stored tile.
final class TIFFTileWriter: TileSink {
    /// One stored level's spool and tile table.
    struct Level {
        let spool: Int32
        let columns: Int
        var end: UInt64 = 0
        /// Per tile (row-major): offset in the spool, and size (0: not written yet).
        var offsets: [UInt64]
        var sizes: [UInt32]
    }

    private struct State {
        /// The stored levels, smallest first: Deep Zoom level `smallestLevel + index`.
        var levels: [Level]
        var tables: [UInt8]?
        var stored = 0
        var bytes = 0
        /// How far the finest level's spool is written without a gap (followed for ``onBodyWritten``).
        var finestFrontier: WriteFrontier
    }

    let pyramid: Pyramid
    /// The smallest Deep Zoom level stored.
    let smallestLevel: Int
    /// The samples per pixel stored: 1 (grey) or 3 (RGB, stored YCbCr 4:2:0) for JPEG; 3 or 4 (RGBA) for WebP; the
    /// source's 1 … 4 for Deflate.
    let channels: Int
    /// How the tiles are compressed.
    let compression: TIFFTileCompression
    /// The ICC profile recorded with the finest level (empty: none).
    let iccProfile: [UInt8]
    /// Microns per pixel of the finest level, recorded in the resolution tags; nil: none recorded.
    let micronsPerPixel: (x: Double, y: Double)?
    /// The full-resolution image's ImageDescription (a slide's properties as `vips-properties.xml`, as
    /// `vips tiffsave --properties` writes them); nil: none.
    let description: String?
    /// A slide's associated images, stored after the levels (those a TIFF strip cannot hold as they are left out).
    let associated: [TIFFAssociatedDirectory]
    /// The finest level's spool, which keeps its name: ``finish(into:bigTIFF:)`` may link it to the TIFF's.
    let finestSpoolPath: String
    /// The finest level's data from which its spool becomes the TIFF (below it, copying costs nothing to speak of and
    /// the block-size alignment would be a large part of the file).
    let inPlaceMinimumBytes: UInt64
    /// Called as the finest level's spool — the TIFF's body — is written for good (see ``SliceOptions/onBodyWritten``);
    /// then ``finish(into:bigTIFF:)`` writes the front alone.
    let onBodyWritten: (@Sendable (_ path: String, _ through: UInt64) -> Void)?
    private let state: Mutex<State>
    /// Where the finest spool's writeback is started: `sync_file_range` blocks while the disk's queue is full (20–30 ms
    /// at a time for the 32768² sample), which on a worker thread left a core idle.
    private let writeback = DispatchQueue(label: "tiler.tiff-writeback", qos: .utility)

    /// The smallest level stored for `pyramid`: the first, going down, that fits in one tile.
    static func smallestLevel(of pyramid: Pyramid) -> Int {
        (0...pyramid.maxLevel).last { level in
            let size = pyramid.levelSize(level)
            return size.width <= pyramid.tileSize && size.height <= pyramid.tileSize
        } ?? pyramid.maxLevel
    }

    /// Creates a spool per stored level in `folder` (the staging folder, removed with whatever is in it when the slice
    /// fails; the smaller levels' spools are unlinked at once).
    ///
    /// - Parameters:
    ///   - channels: The source's channels (1 … 4; no alpha with JPEG).
    ///   - inPlaceMinimumBytes: See ``inPlaceMinimumBytes``.
    init(
        folder: String, pyramid: Pyramid, channels: Int, compression: TIFFTileCompression = .jpeg, inPlaceMinimumBytes: UInt64 = 1 << 20,
        iccProfile: [UInt8] = SRGBProfile.bytes, micronsPerPixel: (x: Double, y: Double)? = nil, description: String? = nil,
        associated: [AssociatedImage] = [], onBodyWritten: (@Sendable (_ path: String, _ through: UInt64) -> Void)? = nil
    ) throws(SliceError) {
        self.pyramid = pyramid
        self.onBodyWritten = onBodyWritten
        self.iccProfile = iccProfile
        self.micronsPerPixel = micronsPerPixel
        self.description = description
        self.associated = associated.compactMap(TIFFAssociatedDirectory.init)
        self.channels = compression.storedChannels(source: channels)
        self.compression = compression
        self.inPlaceMinimumBytes = inPlaceMinimumBytes
        smallestLevel = Self.smallestLevel(of: pyramid)
        finestSpoolPath = "\(folder)/level-\(pyramid.maxLevel).spool"
        var levels: [Level] = []
        for level in smallestLevel...pyramid.maxLevel {
            let path = "\(folder)/level-\(level).spool"
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                for other in levels { close(other.spool) }
                throw SliceError.system(.write, "cannot create \(path)", errno: errno)
            }
            if level != pyramid.maxLevel { unlink(path) }
            let grid = pyramid.grid(level)
            let count = grid.columns * grid.rows
            levels.append(
                Level(spool: fd, columns: grid.columns, offsets: .init(repeating: 0, count: count), sizes: .init(repeating: 0, count: count)))
        }
        state = Mutex(State(levels: levels, finestFrontier: WriteFrontier(tracking: onBodyWritten != nil)))
    }

    deinit {
        writeback.sync {}  // no writeback left to start on a closed descriptor
        state.withLock { state in
            for level in state.levels { close(level.spool) }
        }
    }

    /// Tiles stored and their bytes (stripped of tables).
    var written: (tiles: Int, bytes: Int) { state.withLock { ($0.stored, $0.bytes) } }

    func writeTile(_ bytes: [UInt8], level: Int, column: Int, row: Int) throws(SliceError) {
        guard level >= smallestLevel else { return }
        let split: JPEGTables.Split?
        if compression == .jpeg {
            guard let tables = JPEGTables.split(bytes) else {
                throw SliceError(.encoder, "tile \(level)/\(column)_\(row) is not a JPEG the TIFF can store")
            }
            split = tables
        } else {
            split = nil
        }
        let reserved = state.withLock { state -> (fd: Int32, offset: UInt64, data: [UInt8]) in
            var data = bytes
            if let split {
                if state.tables == nil { state.tables = split.tables }
                // A tile whose tables differ from the shared ones (optimised Huffman tables) keeps its own.
                if split.tables == state.tables { data = split.abbreviated }
            }
            // Mutated in place through the array: copying a level out and back would copy its tile tables per tile.
            let index = level - smallestLevel
            let offset = state.levels[index].end
            let slot = row * state.levels[index].columns + column
            state.levels[index].offsets[slot] = offset
            state.levels[index].sizes[slot] = UInt32(data.count)
            state.levels[index].end += UInt64(data.count)
            if level == pyramid.maxLevel { _ = state.finestFrontier.reserve(UInt64(data.count)) }
            state.stored += 1
            state.bytes += data.count
            return (state.levels[index].spool, offset, data)
        }
        var done = 0
        while done < reserved.data.count {
            let count = reserved.data.withUnsafeBytes {
                pwrite(reserved.fd, $0.baseAddress! + done, $0.count - done, off_t(reserved.offset) + off_t(done))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw SliceError.system(.write, "cannot write tile \(level)/\(column)_\(row)", errno: count < 0 ? errno : EIO) }
            done += count
        }
        // The finest level's spool may become the TIFF by inserting in front of it, which first writes all of it to
        // disk: started as it grows (on a queue of its own), that writing overlaps the slice instead of waiting at its
        // end.
        guard level == pyramid.maxLevel else { return }
        if let onBodyWritten {
            // Sent on as it is written: never made the TIFF in place, so no writeback to start.
            if let through = state.withLock({ $0.finestFrontier.finished(at: reserved.offset) }) { onBodyWritten(finestSpoolPath, through) }
        } else {
            let end = reserved.offset + UInt64(reserved.data.count)
            let window = Self.writebackWindow
            if end / window > reserved.offset / window && end >= inPlaceMinimumBytes {
                let start = (end / window - 1) * window
                let spool = reserved.fd
                writeback.async { _ = tiler_start_writeback(spool, off_t(start), off_t(window)) }
            }
        }
    }

    /// How much of the finest level's spool is handed to the disk at a time: what is left to write when the slice ends
    /// (the insertion waits for it) is at most about this much.
    static let writebackWindow: UInt64 = 8 << 20

    /// Writes the TIFF at `path` (which must not exist): IFDs, then the spooled tiles, smallest level first.
    ///
    /// - Parameter bigTIFF: Always BigTIFF; otherwise only when the file would pass 4 GiB.
    /// - Returns: The file's size in bytes.
    func finish(into path: String, bigTIFF: Bool) throws(SliceError) -> UInt64 {
        writeback.sync {}
        let state = self.state.withLock { $0 }
        var levels: [TIFFFileLayout.Level] = []
        for level in stride(from: pyramid.maxLevel, through: smallestLevel, by: -1) {
            let entry = state.levels[level - smallestLevel]
            if let missing = entry.sizes.firstIndex(of: 0) {
                throw SliceError(.write, "tile \(level)/\(missing % entry.columns)_\(missing / entry.columns) was never written")
            }
            let size = pyramid.levelSize(level)
            levels.append(
                TIFFFileLayout.Level(width: size.width, height: size.height, offsets: entry.offsets, sizes: entry.sizes, spoolSize: entry.end))
        }
        if let onBodyWritten { return try finishFront(levels, state: state, into: path, bigTIFF: bigTIFF, onBodyWritten) }
        if let size = try finishInPlace(levels, state: state, into: path, bigTIFF: bigTIFF) { return size }
        unlink(finestSpoolPath)  // copied instead: the spool goes with its descriptor, as the others do
        let layout = layout(levels, state: state, bigTIFF: bigTIFF)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SliceError.system(.write, "cannot create \(path)", errno: errno) }
        do throws(SliceError) {
            try write(layout, spooledFrom: pyramid.maxLevel, of: state, to: fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw SliceError.system(.write, "cannot write \(path)", errno: errno) }
        return layout.fileSize
    }

    /// Writes the TIFF's front at `path` — the header, the IFDs and the smaller levels, everything before the finest
    /// level's tiles — for a body sent on from the spool as it was written (``onBodyWritten``, called last with the
    /// spool's whole size); returns the whole TIFF's size, front and body.
    private func finishFront(
        _ levels: [TIFFFileLayout.Level], state: State, into path: String, bigTIFF: Bool,
        _ onBodyWritten: @Sendable (_ path: String, _ through: UInt64) -> Void
    ) throws(SliceError) -> UInt64 {
        let layout = layout(levels, state: state, bigTIFF: bigTIFF)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SliceError.system(.write, "cannot create \(path)", errno: errno) }
        do throws(SliceError) {
            try write(layout, spooledFrom: pyramid.maxLevel - 1, of: state, to: fd, path: path)
        } catch {
            close(fd)
            throw error
        }
        guard close(fd) == 0 else { throw SliceError.system(.write, "cannot write \(path)", errno: errno) }
        onBodyWritten(finestSpoolPath, state.levels[pyramid.maxLevel - smallestLevel].end)
        return layout.fileSize
    }

    /// Makes the finest level's spool the TIFF at `path`: inserts room for the header, the IFDs and the smaller levels
    /// in front of its tiles (the finest level's data starting at a multiple of the file system's block size, zeros
    /// before it), writes them there, and links it to `path`. Nil, with the spool unchanged, when its data is under
    /// ``inPlaceMinimumBytes`` or the file system cannot insert.
    private func finishInPlace(_ levels: [TIFFFileLayout.Level], state: State, into path: String, bigTIFF: Bool) throws(SliceError)
        -> UInt64?
    {
        let finest = state.levels[pyramid.maxLevel - smallestLevel]
        // The block size (st_blksize is it on ext4 and XFS; a wrong one only makes the insertion refused).
        var info = stat()
        guard finest.end >= inPlaceMinimumBytes, fstat(finest.spool, &info) == 0, info.st_blksize > 0 else { return nil }
        let layout = layout(levels, state: state, bigTIFF: bigTIFF, finestAlignment: UInt64(info.st_blksize))
        // Nothing has changed when the insertion is refused (EOPNOTSUPP: tmpfs, and file systems without it).
        guard tiler_insert_range(finest.spool, 0, off_t(layout.dataOffsets[0])) == 0 else { return nil }
        try write(layout, spooledFrom: pyramid.maxLevel - 1, of: state, to: finest.spool, path: path)
        // link, not rename: like the copy's O_EXCL, it never replaces a file.
        guard fchmod(finest.spool, 0o644) == 0, link(finestSpoolPath, path) == 0, unlink(finestSpoolPath) == 0 else {
            throw SliceError.system(.write, "cannot write \(path)", errno: errno)
        }
        return layout.fileSize
    }

    /// The layout of the TIFF of `levels` (finest first) as spooled in `state`.
    private func layout(_ levels: [TIFFFileLayout.Level], state: State, bigTIFF: Bool, finestAlignment: UInt64 = 1) -> TIFFFileLayout {
        TIFFFileLayout(
            levels: levels, tileSize: pyramid.tileSize, channels: channels, compression: compression, jpegTables: state.tables ?? [],
            iccProfile: iccProfile, micronsPerPixel: micronsPerPixel, description: description, associated: associated, forceBigTIFF: bigTIFF,
            finestAlignment: finestAlignment)
    }

    /// Writes `layout`'s header and IFDs at the start of `fd`, then the spooled tiles of Deep Zoom levels `top` down to
    /// the smallest stored, each where `layout` puts it.
    private func write(_ layout: TIFFFileLayout, spooledFrom top: Int, of state: State, to fd: Int32, path: String) throws(SliceError) {
        try layout.writeHeader(to: fd, path: path)
        for level in stride(from: top, through: smallestLevel, by: -1) {
            let entry = state.levels[level - smallestLevel]
            // The layout's levels are finest first.
            try Self.copy(from: entry.spool, count: entry.end, to: fd, at: layout.dataOffsets[pyramid.maxLevel - level], path: path)
        }
    }

    /// Copies `count` bytes from the start of `spool` to `output` at `offset`, in the kernel (`copy_file_range`),
    /// falling back to `pread`/`pwrite` where that is refused.
    private static func copy(from spool: Int32, count: UInt64, to output: Int32, at offset: UInt64, path: String) throws(SliceError) {
        var source: off_t = 0
        var destination = off_t(offset)
        var left = Int(count)
        while left > 0 {
            let copied = tiler_copy_file_range(spool, &source, output, &destination, left)
            if copied > 0 {
                left -= copied
                continue
            }
            if copied < 0 && errno == EINTR { continue }
            if copied < 0 && ![EXDEV, EINVAL, ENOSYS, EOPNOTSUPP].contains(errno) {
                throw SliceError.system(.write, "cannot write \(path)", errno: errno)
            }
            break
        }
        guard left > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while left > 0 {
            let got = buffer.withUnsafeMutableBytes { pread(spool, $0.baseAddress!, min($0.count, left), source) }
            guard got > 0 else { throw SliceError.system(.write, "cannot read a tile spool for \(path)", errno: got < 0 ? errno : EIO) }
            var done = 0
            while done < got {
                let put = buffer.withUnsafeBytes { pwrite(output, $0.baseAddress! + done, got - done, destination + off_t(done)) }
                if put < 0 && errno == EINTR { continue }
                guard put > 0 else { throw SliceError.system(.write, "cannot write \(path)", errno: put < 0 ? errno : EIO) }
                done += put
            }
            source += off_t(got)
            destination += off_t(got)
            left -= got
        }
    }
}
