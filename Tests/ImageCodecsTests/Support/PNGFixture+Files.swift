import CPNG
import ImageCodecs

extension PNGFixture {
    /// The 8-bit pixels a decoder must deliver, computed from the PNG specification: low depths scaled
    /// to 0–255 (v × 255 / (2^d − 1)), 16 bits rounded to 8, palette looked up, tRNS turned into alpha.
    func expectedPixels() -> (PixelFormat, [UInt8]) {
        let source = sourceSamples()
        let format: PixelFormat
        switch colorType {
        case 0: format = trns ? .grayAlpha : .gray
        case 4: format = .grayAlpha
        case 2, 3: format = trns ? .rgba : .rgb
        default: format = .rgba
        }
        var bytes: [UInt8] = []
        for pixel in source {
            if colorType == 3 {
                bytes += paletteColor(pixel[0])
                if trns { bytes.append(paletteAlpha(pixel[0])) }
                continue
            }
            bytes += pixel.map { UInt8((($0 * 255) + maxSample / 2) / maxSample) }
            if trns { bytes.append(pixel == transparentColor ? 0 : 255) }
        }
        return (format, bytes)
    }

    /// Rows packed at the source depth: MSB first below 8 bits, big-endian at 16.
    func packedRows() -> (bytes: [UInt8], rowBytes: Int) {
        let source = sourceSamples()
        let rowBits = width * samples * bitDepth
        let rowBytes = (rowBits + 7) / 8
        var bytes = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            var bit = 0
            for x in 0..<width {
                for value in source[y * width + x] {
                    if bitDepth == 16 {
                        bytes[y * rowBytes + bit / 8] = UInt8(value >> 8)
                        bytes[y * rowBytes + bit / 8 + 1] = UInt8(value & 0xFF)
                    } else {
                        bytes[y * rowBytes + bit / 8] |= UInt8(value << (8 - bitDepth - bit % 8))
                    }
                    bit += bitDepth
                }
            }
        }
        return (bytes, rowBytes)
    }

    /// Writes the fixture with libpng (no transforms), optionally with an eXIf payload.
    func write(to path: String, exif: [UInt8]? = nil) throws {
        let (rows, rowBytes) = packedRows()
        let palette = (0..<paletteEntries).flatMap(paletteColor)
        let alphas = (0..<paletteEntries / 2).map(paletteAlpha)
        var message = [CChar](repeating: 0, count: 256)
        let status = rows.withUnsafeBufferPointer { rowsPointer in
            palette.withUnsafeBufferPointer { palettePointer in
                alphas.withUnsafeBufferPointer { alphaPointer in
                    (exif ?? []).withUnsafeBufferPointer { exifPointer in
                        var image = tiler_png_test_image()
                        image.width = UInt32(width)
                        image.height = UInt32(height)
                        image.color_type = colorType
                        image.bit_depth = Int32(bitDepth)
                        image.interlaced = interlaced ? 1 : 0
                        image.rows = rowsPointer.baseAddress
                        image.row_bytes = rowBytes
                        if colorType == 3 {
                            image.palette = palettePointer.baseAddress
                            image.palette_entries = Int32(paletteEntries)
                            if trns {
                                image.palette_alpha = alphaPointer.baseAddress
                                image.palette_alpha_count = Int32(alphas.count)
                            }
                        } else if trns {
                            let color = transparentColor.map(UInt16.init)
                            image.has_trns_color = 1
                            image.trns_gray = color[0]
                            if color.count == 3 { (image.trns_red, image.trns_green, image.trns_blue) = (color[0], color[1], color[2]) }
                        }
                        if exif != nil {
                            image.exif = exifPointer.baseAddress
                            image.exif_length = UInt32(exifPointer.count)
                        }
                        return tiler_png_write_test(path, &image, &message, message.count)
                    }
                }
            }
        }
        guard status == 0 else { throw FixtureError(message: String(decoding: message.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)) }
    }
}

/// A fixture writer failed (a bug in the test set-up, not in the code under test).
struct FixtureError: Error, CustomStringConvertible {
    var message: String
    var description: String { "fixture: \(message)" }
}
