import Foundation
import ImageCodecs
import TileGeometry

/// Pyramidal TIFFs made by the real `vips tiffsave` (Debian's libvips-tools) from a procedural picture, in a
/// ``PyramidFixture``'s ROOT, for the tests of serving files in place.
extension PyramidFixture {
    /// Writes `picture` as PNG beside ROOT (once) and `vips tiffsave`s it into ROOT as `name` with `options`
    /// (e.g. `--tile --pyramid --compression jpeg`).
    func addVipsTIFF(_ name: String, picture: PixelBuffer, options: [String]) throws {
        let source = base + "/picture-\(picture.width)x\(picture.height).png"
        if !FileManager.default.fileExists(atPath: source) {
            try Data(try PNGEncoder().encode(picture)).write(to: URL(fileURLWithPath: source))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/vips")
        process.arguments = ["tiffsave", source, root + "/" + name] + options
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw StoredFixtureError(description: "vips tiffsave \(name) failed: \(message)")
        }
    }

    /// The level pixels of `picture` as Deep Zoom (and `tiler slice`) shrinks it, finest first.
    static func levels(of picture: PixelBuffer) -> [PixelBuffer] {
        var levels = [picture]
        while levels.last!.width > 1 || levels.last!.height > 1 {
            levels.append(TestPicture.halve(levels.last!))
        }
        return levels
    }
}

// Made on a Dispatch thread (vips is waited for there) and handed to the test once complete; not changed afterwards.
extension PyramidFixture: @unchecked Sendable {}

struct StoredFixtureError: Error, CustomStringConvertible {
    let description: String
}

/// Decodes JPEG or PNG bytes (through a temporary file: ImageCodecs decodes from paths).
func decodeImage(_ bytes: [UInt8]) throws -> PixelBuffer {
    let path = NSTemporaryDirectory() + "/decoded-\(UUID().uuidString)"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    defer { try? FileManager.default.removeItem(atPath: path) }
    return try ImageDecoder.decode(path: path)
}

/// The mean absolute difference of two images' samples (nil when their sizes or layouts differ).
func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double? {
    guard a.width == b.width, a.height == b.height, a.pixelFormat == b.pixelFormat else { return nil }
    var total = 0
    for (x, y) in zip(a.bytes, b.bytes) { total += abs(Int(x) - Int(y)) }
    return Double(total) / Double(max(1, a.bytes.count))
}
