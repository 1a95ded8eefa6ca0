import Foundation
import ImageCodecs

/// Camera-like files for the CLI tests: EXIF orientation (JPEG APP1, PNG eXIf) and embedded ICC profiles.
enum TaggedFiles {
    /// An EXIF block (little-endian TIFF header, IFD0) holding only the orientation.
    static func exif(orientation: Int) -> [UInt8] {
        let entry: [UInt8] = [0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(orientation), 0, 0, 0]
        return Array("II".utf8) + [42, 0, 8, 0, 0, 0] + [1, 0] + entry + [0, 0, 0, 0]
    }

    /// A PNG chunk with its CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(Fixtures.crc32(body))
    }

    static func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) } }

    /// `png` with `chunks` right after IHDR.
    static func png(_ png: [UInt8], inserting chunks: [[UInt8]]) -> [UInt8] {
        Array(png[..<33]) + chunks.flatMap { $0 } + Array(png[33...])
    }

    /// `jpeg` with an APPn marker (`app` 1 or 2) holding `payload`, right after SOI.
    static func jpeg(_ jpeg: [UInt8], app: UInt8, payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return Array(jpeg[..<2]) + [0xFF, 0xE0 + app, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }

    /// An iCCP chunk with `profile` in stored (uncompressed) deflate blocks.
    static func iccp(_ profile: [UInt8]) -> [UInt8] {
        var z: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, profile.count - offset)
            z += [offset + count == profile.count ? 1 : 0, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            z += profile[offset..<offset + count]
            offset += count
        } while offset < profile.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in profile {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return chunk("iCCP", Array("icc".utf8) + [0, 0] + z + be32(b << 16 | a))
    }

    /// The stored pixels of an upright `image` that EXIF `orientation` turns back upright.
    static func stored(_ image: PixelBuffer, orientation: Int) -> PixelBuffer {
        // Stored (sx, sy) holds displayed (x, y); invert the EXIF definition per orientation.
        let (w, h) = (image.width, image.height)
        let (sw, sh) = orientation >= 5 ? (h, w) : (w, h)
        let c = image.pixelFormat.channels
        var bytes = [UInt8](repeating: 0, count: image.bytes.count)
        for y in 0..<h {
            for x in 0..<w {
                let (sx, sy): (Int, Int)
                switch orientation {
                case 1: (sx, sy) = (x, y)
                case 2: (sx, sy) = (sw - 1 - x, y)
                case 3: (sx, sy) = (sw - 1 - x, sh - 1 - y)
                case 4: (sx, sy) = (x, sh - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, sh - 1 - x)
                case 7: (sx, sy) = (sw - 1 - y, sh - 1 - x)
                default: (sx, sy) = (sw - 1 - y, x)
                }
                for k in 0..<c { bytes[(sy * sw + sx) * c + k] = image.bytes[(y * w + x) * c + k] }
            }
        }
        return PixelBuffer(width: sw, height: sh, pixelFormat: image.pixelFormat, bytes: bytes)
    }

    /// Flat 16×16 patches of distinct colours: aligned to JPEG's blocks, so a turned copy decodes nearly the same.
    static func patches(width: Int, height: Int) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let patch = (y / 16) * 17 + x / 16
                bytes += [UInt8(patch * 37 % 256), UInt8(patch * 91 % 256), UInt8(patch * 53 % 256)]
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: bytes)
    }
}
