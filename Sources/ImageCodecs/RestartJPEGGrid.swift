import CJPEG
import Glibc
import Synchronization

/// The full-resolution layer of a Hamamatsu VMS slide — a grid of JPEGs with restart markers — read a region at a
/// time without OpenSlide, for the levels OpenSlide makes from it (the JPEGs at 1/1, 1/2, 1/4 and 1/8 through libjpeg's
/// DCT scaling). OpenSlide 3.4 decodes such a slide one restart interval per call (opening the JPEG each time); here one
/// region of a JPEG is one read and one decode (`jpeg_restart.c`), to the same pixels.
///
/// Only what it can read exactly is taken: the key file's `ImageFile` grid of layer 0, every JPEG the same size,
/// unsubsampled 8-bit baseline data whose restart intervals tile it, and a level whose size, downsample and OpenSlide
/// tile size (`openslide.level[N].tile-width/height`) say it is that grid scaled. Everything else stays OpenSlide's.
/// Thread-safe: each JPEG is indexed once (where its intervals begin), on first use.
public final class RestartJPEGGrid: Sendable {
    /// JPEGs across and down.
    public let columns: Int, rows: Int
    /// Each JPEG's size in pixels.
    public let jpegWidth: Int, jpegHeight: Int
    /// The JPEGs' paths, row by row.
    let files: [String]
    /// For each OpenSlide level read here, its scale denominator (1, 2, 4 or 8).
    let scales: [Int: Int]
    private let indexes: Mutex<[Int: Index]>

    /// One JPEG's index, freed with it.
    final class Index: Sendable {
        nonisolated(unsafe) let pointer: OpaquePointer
        init(_ pointer: OpaquePointer) { self.pointer = pointer }
        deinit { tiler_jpeg_restart_index_free(pointer) }
    }

    /// The grid of the VMS key file at `path` as OpenSlide opened it (`levels`, `properties`), or nil when no level
    /// can be read this way. Reads the key file and indexes the first JPEG.
    public init?(vmsPath path: String, levels: [Slide.Level], properties: [String: String]) {
        guard path.lowercased().hasSuffix(".vms"), let grid = Self.keyFileGrid(path) else { return nil }
        guard let first = grid.files.first, let index = Self.index(first) else { return nil }
        var width: Int32 = 0
        var height: Int32 = 0
        var interval: Int32 = 0
        var components: Int32 = 0
        tiler_jpeg_restart_index_geometry(index.pointer, &width, &height, &interval, &components)
        columns = grid.columns
        rows = grid.rows
        jpegWidth = Int(width)
        jpegHeight = Int(height)
        files = grid.files
        var scales: [Int: Int] = [:]
        for (number, level) in levels.enumerated() {
            for scale in [1, 2, 4, 8] where level.downsample == Double(scale) {
                let tileWidth = properties["openslide.level[\(number)].tile-width"].flatMap { Int($0) }
                let tileHeight = properties["openslide.level[\(number)].tile-height"].flatMap { Int($0) }
                guard level.width * scale == columns * jpegWidth, level.height * scale == rows * jpegHeight,
                    tileWidth == Int(interval) / scale, tileHeight == 8 / scale
                else { continue }
                scales[number] = scale
            }
        }
        guard !scales.isEmpty else { return nil }
        self.scales = scales
        indexes = Mutex([0: index])
    }

    /// Whether OpenSlide level `level` is read here.
    public func reads(level: Int) -> Bool { scales[level] != nil }

    /// The pixels of OpenSlide level `level` from (`x`, `y`) over `width` × `height` (level pixels), as RGB; what lies
    /// outside the level is `background`. Nil when a JPEG under the region is not one this reads (then OpenSlide does).
    ///
    /// - Throws: ``SlideError`` `.damaged` when a JPEG cannot be read or decoded.
    /// - Complexity: one copy per row of restart intervals (from the JPEG mapped when it was indexed) and one decode per
    ///   JPEG under the region.
    public func rgb(level: Int, x: Int, y: Int, width: Int, height: Int, background: (red: UInt8, green: UInt8, blue: UInt8)) throws(SlideError)
        -> PixelBuffer?
    {
        guard let scale = scales[level] else { return nil }
        let partWidth = jpegWidth / scale
        let partHeight = jpegHeight / scale
        let levelWidth = columns * partWidth
        let levelHeight = rows * partHeight
        var bytes: [UInt8]
        if x < 0 || y < 0 || x + width > levelWidth || y + height > levelHeight {
            bytes = [UInt8](repeating: 0, count: width * height * 3)
            for i in 0..<(width * height) {
                bytes[3 * i] = background.red
                bytes[3 * i + 1] = background.green
                bytes[3 * i + 2] = background.blue
            }
        } else {
            // Every byte is decoded below (or the read fails and the buffer goes).
            bytes = [UInt8](unsafeUninitializedCapacity: width * height * 3) { $1 = $0.count }
        }
        for (number, left, top, right, bottom) in parts(scale: scale, x0: x, y0: y, x1: x + width, y1: y + height) {
            guard let index = index(of: number) else { return nil }
            let column = number % columns
            let row = number / columns
            var message = [CChar](repeating: 0, count: 256)
            let status = bytes.withUnsafeMutableBufferPointer { pixels in
                tiler_jpeg_restart_read(
                    index.pointer, Int32(scale), Int32(left - column * partWidth), Int32(top - row * partHeight),
                    Int32(right - left), Int32(bottom - top), pixels.baseAddress! + ((top - y) * width + (left - x)) * 3, width * 3,
                    &message, message.count)
            }
            guard status == TILER_JPEG_OK else {
                let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                throw SlideError(kind: .damaged, path: files[number], reason: text.isEmpty ? "the JPEG could not be read" : text)
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: bytes)
    }

    /// The paths of the JPEGs under `x0..<x1` × `y0..<y1` of OpenSlide level `level` (level pixels; what lies outside
    /// the level is ignored): the files ``rgb(level:x:y:width:height:background:)`` reads that region from. Empty for
    /// a level not read here.
    public func paths(level: Int, x0: Int, y0: Int, x1: Int, y1: Int) -> [String] {
        guard let scale = scales[level] else { return [] }
        return parts(scale: scale, x0: x0, y0: y0, x1: x1, y1: y1).map { files[$0.number] }
    }

    /// The JPEGs under `x0..<x1` × `y0..<y1` of the level at 1/`scale` (level pixels, clipped to the level), row by
    /// row: each one's number and the part of the region it holds.
    private func parts(scale: Int, x0: Int, y0: Int, x1: Int, y1: Int) -> [(number: Int, left: Int, top: Int, right: Int, bottom: Int)] {
        let partWidth = jpegWidth / scale
        let partHeight = jpegHeight / scale
        let left = max(0, x0)
        let top = max(0, y0)
        let right = min(columns * partWidth, x1)
        let bottom = min(rows * partHeight, y1)
        guard left < right && top < bottom else { return [] }
        var parts: [(number: Int, left: Int, top: Int, right: Int, bottom: Int)] = []
        for row in (top / partHeight)...((bottom - 1) / partHeight) {
            for column in (left / partWidth)...((right - 1) / partWidth) {
                parts.append(
                    (
                        row * columns + column, max(left, column * partWidth), max(top, row * partHeight), min(right, (column + 1) * partWidth),
                        min(bottom, (row + 1) * partHeight)
                    ))
            }
        }
        return parts
    }

    /// JPEG `number`'s index, made on first use; nil when it is not a JPEG read here (or not the first one's size).
    private func index(of number: Int) -> Index? {
        if let index = indexes.withLock({ $0[number] }) { return index }
        guard let index = Self.index(files[number]) else { return nil }
        var width: Int32 = 0
        var height: Int32 = 0
        var interval: Int32 = 0
        var components: Int32 = 0
        tiler_jpeg_restart_index_geometry(index.pointer, &width, &height, &interval, &components)
        guard Int(width) == jpegWidth, Int(height) == jpegHeight else { return nil }
        return indexes.withLock { table in
            if let raced = table[number] { return raced }
            table[number] = index
            return index
        }
    }

    /// The index of the JPEG at `path`, or nil when it is not one read here (or unreadable: OpenSlide then reports why).
    private static func index(_ path: String) -> Index? {
        var pointer: OpaquePointer?
        var message = [CChar](repeating: 0, count: 256)
        guard tiler_jpeg_restart_index_create(path, &pointer, &message, message.count) == TILER_JPEG_OK, let pointer else { return nil }
        return Index(pointer)
    }

    /// The JPEG grid a VMS key file names for layer 0: `NoJpegColumns` × `NoJpegRows` of `ImageFile(x,y)` (`ImageFile`
    /// alone is (0,0); `ImageFile(x,y,z)` is layer z), beside it; nil when any is missing or named oddly.
    static func keyFileGrid(_ path: String) -> (columns: Int, rows: Int, files: [String])? {
        guard let text = readSmall(path) else { return nil }
        let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        var values: [String: String] = [:]
        for line in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals]).trimmed] = String(line[line.index(after: equals)...]).trimmed
        }
        guard let columns = values["NoJpegColumns"].flatMap({ Int($0) }), let rows = values["NoJpegRows"].flatMap({ Int($0) }),
            columns > 0, rows > 0, columns * rows <= 65536
        else { return nil }
        var files: [String] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let name =
                    values["ImageFile(\(column),\(row))"] ?? values["ImageFile(\(column),\(row),0)"]
                    ?? (column == 0 && row == 0 ? values["ImageFile"] : nil)
                guard let name, !name.isEmpty, !name.contains("/") else { return nil }
                files.append(folder + "/" + name)
            }
        }
        return (columns, rows, files)
    }
}

/// The first 64 KiB of the file at `path` as text (OpenSlide reads no more of a key file).
private func readSmall(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes = [UInt8](repeating: 0, count: 64 << 10)
    let count = bytes.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
    return count > 0 ? String(decoding: bytes.prefix(count), as: UTF8.self) : nil
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmed: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
