import CTIFF

/// Writes RGB TIFFs for the command-line tests with libtiff (through CTIFF's test writer).
enum TIFFFile {
    /// One page: `width × height` RGB pixels of a smooth pattern (ramps across, down and diagonally).
    struct Page {
        var width: Int
        var height: Int
        var tiled = false
        var compression: Int32 = 5
        /// The Orientation tag (0: absent).
        var orientation: Int32 = 0
    }

    /// The pattern's pixel bytes (RGB, rows top to bottom).
    static func pixels(width: Int, height: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let ramps = [x * 255 / max(1, width - 1), y * 255 / max(1, height - 1), (x + y) * 255 / max(1, width + height - 2)]
                for c in 0..<3 { bytes[(y * width + x) * 3 + c] = UInt8(ramps[c]) }
            }
        }
        return bytes
    }

    /// Writes `pages` to `path` (classic TIFF, or BigTIFF with `big`).
    static func write(_ pages: [Page], to path: String, big: Bool = false) throws {
        let rows = pages.map { pixels(width: $0.width, height: $0.height) }
        let buffers = rows.map { bytes -> UnsafeMutablePointer<UInt8> in
            let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
            pointer.initialize(from: bytes, count: bytes.count)
            return pointer
        }
        defer {
            for buffer in buffers { buffer.deallocate() }
        }
        var records: [tiler_tiff_test_page] = []
        for (index, page) in pages.enumerated() {
            var record = tiler_tiff_test_page()
            record.width = UInt32(page.width)
            record.height = UInt32(page.height)
            record.samples_per_pixel = 3
            record.bits_per_sample = 8
            record.photometric = 2
            record.planar = 1
            record.compression = page.compression
            record.tiled = page.tiled ? 1 : 0
            record.tile_width = 64
            record.tile_height = 64
            record.rows_per_strip = 16
            record.extra_sample = -1
            record.orientation = page.orientation
            record.rows = UnsafePointer(buffers[index])
            record.row_bytes = page.width * 3
            records.append(record)
        }
        var message = [CChar](repeating: 0, count: 256)
        let status = records.withUnsafeBufferPointer {
            tiler_tiff_write_test(path, big ? 1 : 0, $0.baseAddress, Int32($0.count), &message, message.count)
        }
        guard status == 0 else { throw TIFFFileError(message: String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)) }
    }
}

/// The fixture writer failed (a test set-up problem).
struct TIFFFileError: Error {
    var message: String
}
