import CPNG
import CTIFF

/// One TIFF variant written by libtiff through CTIFF's test writer: a layout, compression, bit depth, colour type
/// and plane configuration, over smooth samples (so lossy codecs stay close) of an odd size (so edge strips and
/// tiles are partial).
struct TIFFFixture: Sendable, CustomStringConvertible {
    var name: String
    /// TIFF PhotometricInterpretation: 0 min-is-white, 1 min-is-black, 2 RGB, 3 palette, 5 CMYK.
    var photometric: Int32
    var samples: Int
    var bits: Int
    var compression: Int32 = 1
    var predictor: Int32 = 0
    var planar: Int32 = 1
    var tiled = false
    var rowsPerStrip: UInt32 = 8
    /// EXTRASAMPLE_* of the last sample, or -1.
    var extra: Int32 = -1
    /// JPEG only: RGB stored as YCbCr.
    var jpegYCbCr = false
    var bigTIFF = false
    var orientation: Int32 = 0
    /// NewSubfileType 1: a reduced-resolution page.
    var reduced = false
    /// SAMPLEFORMAT_* (0: unset, unsigned).
    var sampleFormat: Int32 = 0
    var width = 45
    var height = 37

    var description: String { name }

    var maxSample: Int { (1 << bits) - 1 }
    var colorSamples: Int { extra >= 0 ? samples - 1 : samples }
    var lossy: Bool { compression == 7 || compression == 50001 }

    /// Sample `s` of pixel (x, y) at full range: smooth ramps, alpha from half to full.
    func sample(x: Int, y: Int, s: Int) -> Int {
        if extra >= 0 && s == samples - 1 { return maxSample / 2 + (maxSample - maxSample / 2) * x / (width - 1) }
        if photometric == 3 { return (x + 2 * y) % (1 << bits) }
        let ramps: [Int] = [x * 3 + y * 2, (width - x) * 2 + y * 3, x + (height - y) * 4, x * 2 + y]
        let span: Int = width * 3 + height * 4
        return ramps[s % 4] * maxSample / span
    }

    /// The samples as stored: premultiplied when the alpha is associated.
    func storedSample(x: Int, y: Int, s: Int) -> Int {
        let value = sample(x: x, y: y, s: s)
        guard extra == 1, s < samples - 1 else { return value }
        let alpha = sample(x: x, y: y, s: samples - 1)
        return (value * alpha + maxSample / 2) / maxSample
    }

    /// Palette entries (8-bit values in a 16-bit map, ×257) for 2^bits entries.
    var colormap: [UInt16] {
        let n = 1 << bits
        let steps = [37, 91, 53]
        var map: [UInt16] = []
        for c in 0..<3 {
            for i in 0..<n {
                let value: Int = (i * steps[c] + c * 60) % 256
                map.append(UInt16(value * 257))
            }
        }
        return map
    }

    /// Rows packed as libtiff takes them: MSB first below 8 bits, native-order 16-bit.
    func packedRows(bigEndian16: Bool = false, stored: Bool = true) -> (bytes: [UInt8], rowBytes: Int) {
        let rowBytes = (width * samples * bits + 7) / 8
        var bytes = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            var bit = 0
            for x in 0..<width {
                for s in 0..<samples {
                    let value = stored ? storedSample(x: x, y: y, s: s) : sample(x: x, y: y, s: s)
                    let at = y * rowBytes + bit / 8
                    if bits == 32 {
                        for k in 0..<4 { bytes[at + k] = UInt8(value >> (8 * k) & 0xFF) }
                    } else if bits == 16 {
                        (bytes[at], bytes[at + 1]) = bigEndian16 ? (UInt8(value >> 8), UInt8(value & 0xFF)) : (UInt8(value & 0xFF), UInt8(value >> 8))
                    } else if bits == 8 {
                        bytes[at] = UInt8(value)
                    } else {
                        bytes[at] |= UInt8(value << (8 - bits - bit % 8))
                    }
                    bit += bits
                }
            }
        }
        return (bytes, rowBytes)
    }

    /// Writes the fixture (and, with `pages`, further copies of it as more pages) to `path`.
    func write(to path: String, pages: [TIFFFixture] = [], icc: [UInt8]? = nil) throws {
        let all = [self] + pages
        let rows = all.map { $0.packedRows() }
        let maps = all.map { $0.photometric == 3 ? $0.colormap : [] }
        var message = [CChar](repeating: 0, count: 256)
        var records = [tiler_tiff_test_page]()
        let status = try withPointers(rows.map(\.bytes), maps, icc ?? []) { rowPointers, mapPointers, iccPointer in
            for (index, fixture) in all.enumerated() {
                var page = tiler_tiff_test_page()
                page.width = UInt32(fixture.width)
                page.height = UInt32(fixture.height)
                page.samples_per_pixel = Int32(fixture.samples)
                page.bits_per_sample = Int32(fixture.bits)
                page.photometric = fixture.photometric
                page.planar = fixture.planar
                page.compression = fixture.compression
                page.predictor = fixture.predictor
                page.jpeg_quality = 92
                page.jpeg_rgb = fixture.jpegYCbCr ? 1 : 0
                page.tiled = fixture.tiled ? 1 : 0
                page.tile_width = 16
                page.tile_height = 16
                page.rows_per_strip = fixture.rowsPerStrip
                page.extra_sample = fixture.extra
                page.orientation = fixture.orientation
                page.subfile_type = fixture.reduced ? 1 : 0
                page.sample_format = fixture.sampleFormat
                page.colormap = fixture.photometric == 3 ? mapPointers[index] : nil
                if index == 0, icc != nil {
                    page.icc = iccPointer
                    page.icc_length = UInt32(icc!.count)
                }
                page.rows = rowPointers[index]
                page.row_bytes = rows[index].rowBytes
                records.append(page)
            }
            return records.withUnsafeBufferPointer {
                tiler_tiff_write_test(path, bigTIFF ? 1 : 0, $0.baseAddress, Int32($0.count), &message, message.count)
            }
        }
        guard status == 0 else { throw FixtureError(message: String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)) }
    }

    /// The same picture as a PNG (gray, gray+alpha, RGB, RGBA or palette at the same depth), when PNG can hold it:
    /// the reference a TIFF must decode to, pixel for pixel. Min-is-white is written inverted; associated alpha
    /// as the straight samples it stands for.
    func writeReferencePNG(to path: String) throws -> Bool {
        let colorType: Int32
        switch (photometric, samples) {
        case (0, 1), (1, 1): colorType = 0
        case (0, 2), (1, 2): colorType = 4
        case (2, 3): colorType = 2
        case (2, 4): colorType = 6
        case (3, _): colorType = 3
        default: return false
        }
        var copy = self
        if photometric == 0 { copy.photometric = 1 }
        var (rows, rowBytes) = copy.packedRows(bigEndian16: true, stored: false)
        if photometric == 0 {
            // Invert the gray samples (not alpha).
            let inverted = TIFFFixture(name: "", photometric: 1, samples: samples, bits: bits, extra: extra, width: width, height: height)
            rows = Self.inverting(inverted, rows: rows, rowBytes: rowBytes)
        }
        let palette = photometric == 3 ? (0..<(1 << bits)).flatMap { i in (0..<3).map { c in UInt8(colormap[c * (1 << bits) + i] / 257) } } : []
        var message = [CChar](repeating: 0, count: 256)
        let status = rows.withUnsafeBufferPointer { rowPointer in
            palette.withUnsafeBufferPointer { palettePointer in
                var image = tiler_png_test_image()
                image.width = UInt32(width)
                image.height = UInt32(height)
                image.color_type = colorType
                image.bit_depth = Int32(bits)
                image.rows = rowPointer.baseAddress
                image.row_bytes = rowBytes
                if colorType == 3 {
                    image.palette = palettePointer.baseAddress
                    image.palette_entries = Int32(1 << bits)
                }
                return tiler_png_write_test(path, &image, &message, message.count)
            }
        }
        guard status == 0 else { throw FixtureError(message: String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)) }
        return true
    }

    private static func inverting(_ fixture: TIFFFixture, rows: [UInt8], rowBytes: Int) -> [UInt8] {
        var rows = rows
        for y in 0..<fixture.height {
            for x in 0..<fixture.width {
                let value = fixture.maxSample - fixture.sample(x: x, y: y, s: 0)
                let bit = x * fixture.samples * fixture.bits
                let at = y * rowBytes + bit / 8
                switch fixture.bits {
                case 16: (rows[at], rows[at + 1]) = (UInt8(value >> 8), UInt8(value & 0xFF))
                case 8: rows[at] = UInt8(value)
                default:
                    let shift = 8 - fixture.bits - bit % 8
                    rows[at] = rows[at] & ~UInt8(fixture.maxSample << shift) | UInt8(value << shift)
                }
            }
        }
        return rows
    }
}

/// Calls `body` with stable pointers to every array's storage.
private func withPointers<R>(
    _ rows: [[UInt8]], _ maps: [[UInt16]], _ icc: [UInt8],
    _ body: ([UnsafePointer<UInt8>], [UnsafePointer<UInt16>?], UnsafePointer<UInt8>?) throws -> R
) throws -> R {
    let rowCopies = rows.map { bytes -> UnsafeMutablePointer<UInt8> in
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, bytes.count))
        pointer.initialize(from: bytes, count: bytes.count)
        return pointer
    }
    let mapCopies = maps.map { map -> UnsafeMutablePointer<UInt16>? in
        guard !map.isEmpty else { return nil }
        let pointer = UnsafeMutablePointer<UInt16>.allocate(capacity: map.count)
        pointer.initialize(from: map, count: map.count)
        return pointer
    }
    let iccCopy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, icc.count))
    iccCopy.initialize(from: icc, count: icc.count)
    defer {
        for copy in rowCopies { copy.deallocate() }
        for copy in mapCopies { copy?.deallocate() }
        iccCopy.deallocate()
    }
    return try body(rowCopies.map { UnsafePointer($0) }, mapCopies.map { $0.map { UnsafePointer($0) } }, UnsafePointer(iccCopy))
}

extension TIFFFixture {
    /// TIFF compression codes.
    static let none: Int32 = 1, lzw: Int32 = 5, jpeg: Int32 = 7, deflate: Int32 = 8, packBits: Int32 = 32773
    static let lzma: Int32 = 34925, zstd: Int32 = 50000, webp: Int32 = 50001
    static let ccittGroup3: Int32 = 3, ccittGroup4: Int32 = 4

    /// Every layout, compression, bit depth, colour type and plane configuration the reader claims (codecs this
    /// libtiff lacks are left out by `available`).
    static let all: [TIFFFixture] = {
        var list: [TIFFFixture] = []
        for bits in [1, 2, 4, 8, 16] {
            list.append(TIFFFixture(name: "gray \(bits)-bit strips", photometric: 1, samples: 1, bits: bits))
            list.append(TIFFFixture(name: "gray \(bits)-bit tiles", photometric: 1, samples: 1, bits: bits, compression: lzw, tiled: true))
        }
        list.append(TIFFFixture(name: "min-is-white 1-bit PackBits", photometric: 0, samples: 1, bits: 1, compression: packBits))
        list.append(TIFFFixture(name: "min-is-white 8-bit", photometric: 0, samples: 1, bits: 8))
        // Bilevel scans: fax compression, min-is-white as fax machines store it, and min-is-black.
        list.append(TIFFFixture(name: "min-is-white 1-bit CCITT Group 4", photometric: 0, samples: 1, bits: 1, compression: ccittGroup4))
        list.append(TIFFFixture(name: "gray 1-bit CCITT Group 3", photometric: 1, samples: 1, bits: 1, compression: ccittGroup3))
        for bits in [2, 4, 8] {
            list.append(TIFFFixture(name: "palette \(bits)-bit strips", photometric: 3, samples: 1, bits: bits, compression: lzw))
            list.append(TIFFFixture(name: "palette \(bits)-bit tiles", photometric: 3, samples: 1, bits: bits, tiled: true))
        }
        for (name, code) in [("none", none), ("PackBits", packBits), ("LZW", lzw), ("Deflate", deflate), ("ZSTD", zstd), ("LZMA", lzma)] {
            list.append(TIFFFixture(name: "RGB 8-bit \(name)", photometric: 2, samples: 3, bits: 8, compression: code))
        }
        list += [
            TIFFFixture(name: "RGB 8-bit LZW predictor 2", photometric: 2, samples: 3, bits: 8, compression: lzw, predictor: 2),
            TIFFFixture(
                name: "RGB 8-bit Deflate predictor 2 tiles", photometric: 2, samples: 3, bits: 8, compression: deflate, predictor: 2, tiled: true),
            TIFFFixture(name: "RGB 16-bit none", photometric: 2, samples: 3, bits: 16),
            TIFFFixture(name: "RGB 16-bit Deflate predictor 2", photometric: 2, samples: 3, bits: 16, compression: deflate, predictor: 2),
            TIFFFixture(name: "RGB 16-bit ZSTD tiles", photometric: 2, samples: 3, bits: 16, compression: zstd, tiled: true),
            TIFFFixture(name: "RGB 8-bit separate planes strips", photometric: 2, samples: 3, bits: 8, compression: lzw, planar: 2),
            TIFFFixture(name: "RGB 8-bit separate planes tiles", photometric: 2, samples: 3, bits: 8, planar: 2, tiled: true),
            TIFFFixture(name: "RGB 8-bit one strip", photometric: 2, samples: 3, bits: 8, compression: lzw, rowsPerStrip: 37),
            TIFFFixture(name: "gray+alpha 8-bit", photometric: 1, samples: 2, bits: 8, extra: 2),
            TIFFFixture(name: "gray+alpha 16-bit tiles", photometric: 1, samples: 2, bits: 16, compression: deflate, tiled: true, extra: 2),
            TIFFFixture(name: "RGBA 8-bit unassociated", photometric: 2, samples: 4, bits: 8, compression: lzw, extra: 2),
            TIFFFixture(name: "RGBA 8-bit unspecified extra sample", photometric: 2, samples: 4, bits: 8, extra: 0),
            TIFFFixture(name: "RGBA 8-bit associated", photometric: 2, samples: 4, bits: 8, compression: deflate, extra: 1),
            TIFFFixture(name: "RGBA 16-bit associated separate planes", photometric: 2, samples: 4, bits: 16, planar: 2, extra: 1),
            TIFFFixture(name: "RGBA 16-bit unassociated separate tiles", photometric: 2, samples: 4, bits: 16, planar: 2, tiled: true, extra: 2),
            TIFFFixture(name: "CMYK 8-bit", photometric: 5, samples: 4, bits: 8, compression: lzw),
            TIFFFixture(name: "CMYK 16-bit separate planes", photometric: 5, samples: 4, bits: 16, planar: 2),
            TIFFFixture(name: "CMYK+alpha 8-bit tiles", photometric: 5, samples: 5, bits: 8, tiled: true, extra: 2),
            TIFFFixture(name: "RGB JPEG YCbCr strips", photometric: 2, samples: 3, bits: 8, compression: jpeg, rowsPerStrip: 16, jpegYCbCr: true),
            TIFFFixture(name: "RGB JPEG YCbCr tiles", photometric: 2, samples: 3, bits: 8, compression: jpeg, tiled: true, jpegYCbCr: true),
            TIFFFixture(name: "RGB JPEG (RGB components)", photometric: 2, samples: 3, bits: 8, compression: jpeg, rowsPerStrip: 16),
            TIFFFixture(name: "gray JPEG", photometric: 1, samples: 1, bits: 8, compression: jpeg, rowsPerStrip: 16),
            TIFFFixture(name: "RGB WebP", photometric: 2, samples: 3, bits: 8, compression: webp, rowsPerStrip: 16),
            TIFFFixture(name: "RGBA WebP tiles", photometric: 2, samples: 4, bits: 8, compression: webp, tiled: true, extra: 2),
            TIFFFixture(name: "BigTIFF RGB Deflate tiles", photometric: 2, samples: 3, bits: 8, compression: deflate, tiled: true, bigTIFF: true),
            TIFFFixture(name: "BigTIFF gray 16-bit strips", photometric: 1, samples: 1, bits: 16, compression: lzw, bigTIFF: true),
        ]
        return list
    }()

    /// The fixtures whose codec this libtiff has.
    static var available: [TIFFFixture] { all.filter { tiler_tiff_codec_configured($0.compression) != 0 } }

    /// The 8-bit pixels the naive CMYK conversion gives: (255 − C)(255 − K)/255, rounded, from 8-bit inks.
    func expectedCMYK() -> [UInt8] {
        func to8(_ v: Int) -> Int { bits == 16 ? (v + 128) / 257 : v }
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let k = 255 - to8(sample(x: x, y: y, s: 3))
                for c in 0..<3 { bytes.append(UInt8(((255 - to8(sample(x: x, y: y, s: c))) * k + 127) / 255)) }
                if extra >= 0 { bytes.append(UInt8(to8(sample(x: x, y: y, s: 4)))) }
            }
        }
        return bytes
    }
}
