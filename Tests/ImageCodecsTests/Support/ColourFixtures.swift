import Foundation
import ImageCodecs

/// Real ICC profiles (Debian's colord-data, installed by scripts/setup), tagged PNG and JPEG files made from
/// untagged ones, and Pillow's ImageCms as the independent reference conversion.
enum ColourFixtures {
    static let profileFolder = "/usr/share/color/icc/colord"

    /// The bytes of colord's `name.icc`.
    static func profile(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(profileFolder)/\(name).icc")))
    }

    /// A zlib stream of stored (uncompressed) deflate blocks: enough for a PNG chunk, no zlib needed.
    static func zlibStored(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(65535, bytes.count - offset)
            let final: UInt8 = offset + count == bytes.count ? 1 : 0
            out += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            out += bytes[offset..<offset + count]
            offset += count
        } while offset < bytes.count
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return out + PNGChunks.u32(b << 16 | a)
    }

    /// An `iCCP` chunk holding `profile`.
    static func iccpChunk(_ profile: [UInt8]) -> [UInt8] {
        PNGChunks.chunk("iCCP", Array("test profile".utf8) + [0, 0] + zlibStored(profile))
    }

    /// `png` with `chunks` inserted right after IHDR.
    static func inserting(_ chunks: [[UInt8]], into png: [UInt8]) -> [UInt8] {
        let afterIHDR = 8 + 25
        return Array(png[..<afterIHDR]) + chunks.flatMap { $0 } + Array(png[afterIHDR...])
    }

    /// `jpeg` with APP2 `ICC_PROFILE` markers carrying `profile` in pieces of at most `piece` bytes, right after SOI.
    /// `order` permutes the markers; `drop` leaves one out (1-based), to test reassembly and damage.
    static func jpegWithICC(_ jpeg: [UInt8], profile: [UInt8], piece: Int = 60000, order: [Int]? = nil, drop: Int? = nil) -> [UInt8] {
        let pieces = stride(from: 0, to: profile.count, by: piece).map { Array(profile[$0..<min($0 + piece, profile.count)]) }
        var markers: [[UInt8]] = pieces.enumerated().map { index, data in
            let payload = Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(pieces.count)] + data
            let length = payload.count + 2
            return [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        }
        if let order { markers = order.map { markers[$0 - 1] } }
        if let drop { markers.remove(at: drop - 1) }
        return Array(jpeg[..<2]) + markers.flatMap { $0 } + Array(jpeg[2...])
    }

    /// `jpeg` with an APP1 Exif marker holding `exif` right after SOI.
    static func jpegWithExif(_ jpeg: [UInt8], exif: [UInt8]) -> [UInt8] {
        let payload = Array("Exif".utf8) + [0, 0] + exif
        let length = payload.count + 2
        return Array(jpeg[..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg[2...])
    }

    /// A picture touching much of the RGB cube: red across, green down, blue in diagonal bands.
    static func gradient(width: Int = 64, height: Int = 64) -> PixelBuffer {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                bytes += [UInt8(x * 255 / (width - 1)), UInt8(y * 255 / (height - 1)), UInt8((x * 7 + y * 3) % 256)]
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: bytes)
    }

    /// Pillow's ImageCms conversion of the 8-bit RGB pixels of the untagged image at `path` from `profile` to
    /// sRGB (relative colorimetric, black-point compensation): the independent reference.
    static func pillowReference(untagged path: String, profile: String) throws -> [UInt8] {
        let script = """
            import io, sys
            from PIL import Image, ImageCms
            image = Image.open(sys.argv[1]).convert('RGB')
            source = ImageCms.ImageCmsProfile(sys.argv[2])
            transform = ImageCms.buildTransform(source, ImageCms.createProfile('sRGB'), 'RGB', 'RGB',
                renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC, flags=ImageCms.FLAGS['BLACKPOINTCOMPENSATION'])
            sys.stdout.buffer.write(ImageCms.applyTransform(image, transform).tobytes())
            """
        let process = Process()
        // Debian's interpreter, where python3-pil is installed (a pyenv python3 on PATH may lack it).
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, path, profile]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let problem = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw FixtureError(message: "Pillow reference failed: \(String(decoding: problem, as: UTF8.self))")
        }
        return [UInt8](data)
    }

    /// The largest absolute difference between two sample arrays of equal length.
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        precondition(a.count == b.count, "sizes differ: \(a.count) vs \(b.count)")
        return zip(a, b).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
    }
}
