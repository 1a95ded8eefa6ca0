import Foundation
import ImageCodecs
import TestSupport

/// Files the CLI tests work on, made by the test itself in a fresh temporary folder.
struct Fixtures {
    private let directory: TemporaryDirectory
    /// The fresh folder.
    var folder: URL { directory.url }

    init() throws {
        directory = try TemporaryDirectory(prefix: "cli")
    }

    func path(_ name: String) -> String { directory.file(name) }

    func remove() { directory.remove() }

    /// Writes a smooth `width` × `height` picture with `format` through ImageCodecs' streaming writer.
    @discardableResult
    func image(_ name: String, width: Int, height: Int, pixelFormat: PixelFormat = .rgb, format: ImageFileWriter.Format) throws -> String {
        let path = path(name)
        let writer = try ImageFileWriter(path: path, width: width, height: height, pixelFormat: pixelFormat, format: format)
        let channels = pixelFormat.channels
        var row = [UInt8](repeating: 0, count: width * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels { row[x * channels + c] = UInt8((x * 3 + y * 5 + c * 60) & 0xFF) }
            }
            try row.withUnsafeBufferPointer { try writer.write(rows: $0.baseAddress!, count: 1) }
        }
        try writer.finish()
        return path
    }

    /// Writes `width` × `height` RGB noise as a quality-95 JPEG: its tiles barely compress, so a slice of a few
    /// megapixels is tens of megabytes.
    @discardableResult
    func noise(_ name: String, width: Int, height: Int) throws -> String {
        let path = path(name)
        let writer = try ImageFileWriter(path: path, width: width, height: height, pixelFormat: .rgb, format: .jpeg(quality: 95))
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var row = [UInt8](repeating: 0, count: width * 3)
        for _ in 0..<height {
            for index in stride(from: 0, to: row.count - 7, by: 8) {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                withUnsafeBytes(of: state) { bytes in for k in 0..<8 { row[index + k] = bytes[k] } }
            }
            try row.withUnsafeBufferPointer { try writer.write(rows: $0.baseAddress!, count: 1) }
        }
        try writer.finish()
        return path
    }

    /// Writes raw bytes.
    @discardableResult
    func file(_ name: String, bytes: [UInt8]) throws -> String {
        try Data(bytes).write(to: folder.appendingPathComponent(name))
        return path(name)
    }

    /// The bytes of a file.
    func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: folder.appendingPathComponent(name))) }

    /// A PNG signature and an IHDR chunk (with a correct CRC) declaring `width` × `height`, 8-bit RGB, and nothing else.
    static func pngHeader(width: UInt32, height: UInt32) -> [UInt8] {
        var ihdr: [UInt8] = Array("IHDR".utf8)
        for value in [width, height] { ihdr += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> UInt32($0)) } }
        ihdr += [8, 2, 0, 0, 0]
        let crc = crc32(ihdr)
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + ihdr
            + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: crc >> UInt32($0)) }
    }

    /// CRC-32 as PNG defines it.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}
