import Foundation

/// The bytes before the tile data of a tiled pyramidal TIFF (JPEG, WebP or Deflate tiles) laid out for reading over HTTP ranges
/// (as COG's layout asks): the header, then every level's IFD with the values that do not fit in it, finest level
/// first (IFD 0 the full image, then reduced-resolution images, NewSubfileType 1), then a slide's associated images'
/// IFDs (``TIFFAssociatedDirectory``) and their JPEG files, then the tile data, smallest level first. Classic TIFF, or
/// BigTIFF when the file would pass 4 GiB (or when asked).
///
/// Everything is sized before anything is written: the tile tables' sizes depend only on the tile counts, so the
/// offset of every byte is known from the spooled tile sizes.
struct TIFFFileLayout {
    /// One stored level: its size, and its tiles' offsets in its spool and sizes, row-major.
    struct Level {
        let width: Int
        let height: Int
        let offsets: [UInt64]
        let sizes: [UInt32]
        let spoolSize: UInt64
    }

    let levels: [Level]
    let tileSize: Int
    let channels: Int
    let compression: TIFFTileCompression
    let jpegTables: [UInt8]
    let iccProfile: [UInt8]
    /// The associated images stored after the levels, in this order.
    let associated: [TIFFAssociatedDirectory]
    /// Microns per pixel of the finest level, across and down, recorded in every level's resolution tags (pixels per
    /// centimetre, each level's its own); nil: no resolution tags.
    let micronsPerPixel: (x: Double, y: Double)?
    /// Whether the file is BigTIFF.
    let bigTIFF: Bool
    /// Where each level's tile data starts (in ``levels``' order, finest first).
    let dataOffsets: [UInt64]
    /// The file's size in bytes.
    let fileSize: UInt64
    /// The header and IFDs, ready to write at offset 0.
    private let header: [UInt8]

    /// - Parameter finestAlignment: What the finest level's data offset is a multiple of (zeros before it): the file
    ///   system's block size when that level's spool becomes the file by inserting the rest in front of it.
    init(
        levels: [Level], tileSize: Int, channels: Int, compression: TIFFTileCompression = .jpeg, jpegTables: [UInt8], iccProfile: [UInt8],
        micronsPerPixel: (x: Double, y: Double)? = nil, description: String? = nil, associated: [TIFFAssociatedDirectory] = [],
        forceBigTIFF: Bool, finestAlignment: UInt64 = 1
    ) {
        self.levels = levels
        self.tileSize = tileSize
        self.channels = channels
        self.compression = compression
        self.jpegTables = jpegTables
        self.iccProfile = iccProfile
        self.associated = associated
        self.micronsPerPixel = micronsPerPixel
        let tags = Tags(
            channels: channels, compression: compression, tables: jpegTables, icc: iccProfile, micronsPerPixel: micronsPerPixel,
            description: description.map { Array($0.utf8) + [0] } ?? [], associated: associated)
        let tileBytes = levels.reduce(UInt64(0)) { $0 + $1.spoolSize }
        var big = forceBigTIFF
        if !big {
            // The header's size in classic TIFF, to see whether everything fits below 4 GiB.
            let classicHeader = Self.build(levels, tileSize, tags, big: false, dataOffsets: levels.map { _ in 0 }).count
            big = UInt64(classicHeader) + tileBytes + finestAlignment - 1 > UInt64(UInt32.max)
        }
        bigTIFF = big
        let size = Self.build(levels, tileSize, tags, big: big, dataOffsets: levels.map { _ in 0 }).count
        // Smallest level first: the levels are finest first, so their data goes in reverse order.
        var offsets = [UInt64](repeating: 0, count: levels.count)
        var cursor = UInt64(size)
        for index in levels.indices.reversed() {
            if index == 0 { cursor = (cursor + finestAlignment - 1) / finestAlignment * finestAlignment }
            offsets[index] = cursor
            cursor += levels[index].spoolSize
        }
        dataOffsets = offsets
        fileSize = cursor
        header = Self.build(levels, tileSize, tags, big: big, dataOffsets: offsets)
        precondition(header.count == size, "TIFF header size changed with the offsets")
    }

    /// Writes the header and IFDs at the start of `fd`.
    func writeHeader(to fd: Int32, path: String) throws(SliceError) {
        var done = 0
        while done < header.count {
            let count = header.withUnsafeBytes { pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw SliceError.system(.write, "cannot write \(path)", errno: count < 0 ? errno : EIO) }
            done += count
        }
    }

    /// One IFD entry: tag, type, count and the value's bytes (little-endian).
    struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: Int
        let value: [UInt8]
    }

    static let short: UInt16 = 3
    static let long: UInt16 = 4
    static let long8: UInt16 = 16
    static let undefined: UInt16 = 7
    static let ascii: UInt16 = 2
    static let rational: UInt16 = 5

    /// What every level's IFD says alike.
    private struct Tags {
        let channels: Int
        let compression: TIFFTileCompression
        let tables: [UInt8]
        let icc: [UInt8]
        let micronsPerPixel: (x: Double, y: Double)?
        /// The finest level's ImageDescription with its closing NUL (empty: none).
        let description: [UInt8]
        /// The associated images' directories, after the levels'.
        let associated: [TIFFAssociatedDirectory]
    }

    static func shorts(_ values: [Int]) -> [UInt8] { values.flatMap { le(UInt16($0)) } }
    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian) { Array($0) } }

    /// The header, every IFD with its out-of-line values and the associated images' JPEG files, given where each
    /// level's tile data starts.
    private static func build(_ levels: [Level], _ tileSize: Int, _ tags: Tags, big: Bool, dataOffsets: [UInt64]) -> [UInt8] {
        let directories = self.directories(levels, tileSize, tags, big: big, dataOffsets: dataOffsets, associatedAt: 0)
        guard !tags.associated.isEmpty else { return directories }
        // The IFDs' size does not depend on the offsets in them: the JPEG files go right after them.
        var out = self.directories(levels, tileSize, tags, big: big, dataOffsets: dataOffsets, associatedAt: UInt64(directories.count))
        for image in tags.associated { out += image.jpeg }
        return out
    }

    /// The header and every IFD with its out-of-line values: the levels', then the associated images', whose JPEG
    /// files lie one after the other from `associatedAt`.
    private static func directories(
        _ levels: [Level], _ tileSize: Int, _ tags: Tags, big: Bool, dataOffsets: [UInt64], associatedAt: UInt64
    ) -> [UInt8] {
        var out: [UInt8] = [0x49, 0x49]
        if big {
            out += le(UInt16(43)) + le(UInt16(8)) + le(UInt16(0)) + le(UInt64(16))
        } else {
            out += le(UInt16(42)) + le(UInt32(8))
        }
        let count = levels.count + tags.associated.count
        for (index, level) in levels.enumerated() {
            let entries = self.entries(level, index: index, tileSize, tags, big: big, dataOffset: dataOffsets[index])
            append(entries, last: index == count - 1, big: big, to: &out)
        }
        var at = associatedAt
        for (index, image) in tags.associated.enumerated() {
            append(image.entries(stripOffset: at, big: big), last: levels.count + index == count - 1, big: big, to: &out)
            at += UInt64(image.jpeg.count)
        }
        return out
    }

    private static func entries(_ level: Level, index: Int, _ tileSize: Int, _ tags: Tags, big: Bool, dataOffset: UInt64) -> [Entry] {
        let (channels, compression, tables, icc) = (tags.channels, tags.compression, tags.tables, tags.icc)
        let ycbcr = compression == .jpeg && channels == 3
        // Grey 1, RGB 2, YCbCr 6; alpha (2 or 4 samples) is unassociated (ExtraSamples 2), as PNG's and WebP's is.
        let photometric = ycbcr ? 6 : channels >= 3 ? 2 : 1
        var entries = [
            Entry(tag: 254, type: long, count: 1, value: le(UInt32(index == 0 ? 0 : 1))),
            Entry(tag: 256, type: long, count: 1, value: le(UInt32(level.width))),
            Entry(tag: 257, type: long, count: 1, value: le(UInt32(level.height))),
            Entry(tag: 258, type: short, count: channels, value: shorts(Array(repeating: 8, count: channels))),
            Entry(tag: 259, type: short, count: 1, value: shorts([compression.tag])),
            Entry(tag: 262, type: short, count: 1, value: shorts([photometric])),
            Entry(tag: 277, type: short, count: 1, value: shorts([channels])),
            Entry(tag: 284, type: short, count: 1, value: shorts([1])),
            Entry(tag: 305, type: ascii, count: 6, value: Array("tiler\0".utf8)),
            Entry(tag: 322, type: long, count: 1, value: le(UInt32(tileSize))),
            Entry(tag: 323, type: long, count: 1, value: le(UInt32(tileSize))),
            Entry(
                tag: 324, type: big ? long8 : long, count: level.offsets.count,
                value: big ? level.offsets.flatMap { le(dataOffset + $0) } : level.offsets.flatMap { le(UInt32(truncatingIfNeeded: dataOffset + $0)) }
            ),
            Entry(tag: 325, type: long, count: level.sizes.count, value: level.sizes.flatMap { le($0) }),
        ]
        if compression == .deflate { entries.insert(Entry(tag: 317, type: short, count: 1, value: shorts([2])), at: entries.count - 4) }
        if channels % 2 == 0 { entries.append(Entry(tag: 338, type: short, count: 1, value: shorts([2]))) }
        if !tables.isEmpty { entries.append(Entry(tag: 347, type: undefined, count: tables.count, value: tables)) }
        if ycbcr { entries.append(Entry(tag: 530, type: short, count: 2, value: shorts([2, 2]))) }
        if index == 0 && !icc.isEmpty { entries.append(Entry(tag: 34675, type: undefined, count: icc.count, value: icc)) }
        if index == 0 && !tags.description.isEmpty {
            entries.append(Entry(tag: 270, type: ascii, count: tags.description.count, value: tags.description))
        }
        if let mpp = tags.micronsPerPixel {
            // Level `index` is 2^index times coarser than the finest: its pixels per centimetre are that much fewer.
            let scale = Double(1 << min(index, 62))
            entries.append(Entry(tag: 282, type: rational, count: 1, value: perCentimetre(micronsPerPixel: mpp.x * scale)))
            entries.append(Entry(tag: 283, type: rational, count: 1, value: perCentimetre(micronsPerPixel: mpp.y * scale)))
            entries.append(Entry(tag: 296, type: short, count: 1, value: shorts([3])))
        }
        // TIFF wants an IFD's entries in ascending tag order.
        return entries.sorted { $0.tag < $1.tag }
    }

    /// The RATIONAL of pixels per centimetre at `micronsPerPixel` (10⁴ µm a centimetre): 10⁹ over 10⁵ × µm, both
    /// halved until the denominator fits 32 bits — five significant digits of the microns per pixel at least.
    private static func perCentimetre(micronsPerPixel: Double) -> [UInt8] {
        var numerator = 1e9
        var denominator = (micronsPerPixel * 1e5).rounded()
        while denominator > Double(UInt32.max) {
            numerator /= 2
            denominator = (denominator / 2).rounded()
        }
        return le(UInt32(max(1, numerator.rounded()))) + le(UInt32(max(1, denominator)))
    }

    /// Appends an IFD at the end of `out` (word-aligned), its out-of-line values right after it, and points the
    /// next-IFD field at the end (where the next IFD goes) unless it is the `last`.
    private static func append(_ entries: [Entry], last: Bool, big: Bool, to out: inout [UInt8]) {
        if out.count % 2 == 1 { out.append(0) }
        let start = out.count
        let inline = big ? 8 : 4
        let ifdSize = big ? 8 + entries.count * 20 + 8 : 2 + entries.count * 12 + 4
        var values: [UInt8] = []
        var ifd: [UInt8] = big ? le(UInt64(entries.count)) : le(UInt16(entries.count))
        for entry in entries {
            ifd += le(entry.tag) + le(entry.type)
            ifd += big ? le(UInt64(entry.count)) : le(UInt32(entry.count))
            if entry.value.count <= inline {
                ifd += entry.value + [UInt8](repeating: 0, count: inline - entry.value.count)
            } else {
                if values.count % 2 == 1 { values.append(0) }
                let at = UInt64(start + ifdSize + values.count)
                ifd += big ? le(at) : le(UInt32(at))
                values += entry.value
            }
        }
        var next = UInt64(start + ifdSize + values.count)
        next += next % 2
        ifd += big ? le(last ? 0 : next) : le(UInt32(last ? 0 : next))
        out += ifd + values
    }
}
