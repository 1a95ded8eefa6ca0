import Foundation
import ImageCodecs
import TestSupport
import TileGeometry

/// Real image pyramids for the IIIF tests: a procedural picture, its levels made by 2×2 box averaging (as the
/// slicer does: rounded means, short blocks at odd edges), and tiles encoded with the ImageCodecs encoders.
extension PyramidFixture {
    /// Writes pyramid `name` of `image` with `tileSize`-pixel tiles encoded as `format` (`png`: lossless, or `jpg`
    /// at quality 90), each repeating `overlap` pixels of its neighbours; returns the levels' pixels, by level.
    @discardableResult
    func addImagePyramid(_ name: String, image: PixelBuffer, tileSize: Int = 128, overlap: Int = 0, format: String = "png") throws
        -> [PixelBuffer]
    {
        let descriptor = DZIDescriptor(width: image.width, height: image.height, tileSize: tileSize, overlap: overlap, format: format)
        let pyramid = descriptor.pyramid
        var levels = [image]
        while levels.count < pyramid.levelCount {
            levels.append(TestPicture.halve(levels.last!))
        }
        levels.reverse()
        let jpeg = try JPEGEncoder(quality: 90)
        let png = try PNGEncoder()
        for level in 0...pyramid.maxLevel {
            let folder = "\(root)/\(name)_files/\(level)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let grid = pyramid.grid(level)
            for column in 0..<grid.columns {
                for row in 0..<grid.rows {
                    let tile = TestPicture.crop(levels[level], pyramid.tileImageRect(level: level, column: column, row: row))
                    let bytes = format == "png" ? try png.encode(tile) : try jpeg.encode(tile)
                    try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/\(column)_\(row).\(format)"))
                }
            }
        }
        try descriptor.xml.write(toFile: "\(root)/\(name).dzi", atomically: true, encoding: .utf8)
        return levels
    }

    /// The bytes of a stored tile.
    func tileBytes(_ name: String, level: Int, column: Int, row: Int, format: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: "\(root)/\(name)_files/\(level)/\(column)_\(row).\(format)")))
    }
}

/// The test picture and pixel helpers (test-side, independent of the server's code).
enum TestPicture {
    /// A `width` × `height` picture with gradients, a sine pattern and hard-edged blocks; `channels` 1, 3 or 4.
    static func make(width: Int, height: Int, channels: Int = 3) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let block = (x / 37 + y / 29) % 5 == 0
                let r = Double(x) * 255 / Double(max(1, width - 1))
                let g = Double(y) * 255 / Double(max(1, height - 1))
                let b = 128 + 100 * sin(Double(x) / 7) * cos(Double(y) / 11)
                let rgb = [r, g, b].map { UInt8(max(0, min(255, block ? 255 - $0 : $0)).rounded()) }
                let offset = (y * width + x) * channels
                switch channels {
                case 1: bytes[offset] = UInt8((Int(rgb[0]) + Int(rgb[1]) + Int(rgb[2])) / 3)
                case 4:
                    bytes.replaceSubrange(offset..<offset + 3, with: rgb)
                    bytes[offset + 3] = 255
                default: bytes.replaceSubrange(offset..<offset + 3, with: rgb)
                }
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: PixelFormat(rawValue: channels)!, bytes: bytes)
    }

    /// A `width` × `height` RGB picture of seeded random pixels: no encoder can compress it, so a PNG of it is at least
    /// `width × height × 3` bytes.
    static func noise(width: Int, height: Int, seed: UInt64 = 17) -> PixelBuffer {
        var generator = SplitMix64(seed: seed)
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        var index = 0
        while index < bytes.count {
            var word = generator.next()
            for _ in 0..<min(8, bytes.count - index) {
                bytes[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: bytes)
    }

    /// The next pyramid level: each pixel the rounded mean of the 2×2 block it covers (fewer at odd edges).
    static func halve(_ image: PixelBuffer) -> PixelBuffer {
        let channels = image.pixelFormat.channels
        let width = (image.width + 1) / 2
        let height = (image.height + 1) / 2
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                let xs = (2 * x)..<min(2 * x + 2, image.width)
                let ys = (2 * y)..<min(2 * y + 2, image.height)
                for c in 0..<channels {
                    var sum = 0
                    for sy in ys { for sx in xs { sum += Int(image.bytes[(sy * image.width + sx) * channels + c]) } }
                    let count = xs.count * ys.count
                    bytes[(y * width + x) * channels + c] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: image.pixelFormat, bytes: bytes)
    }

    /// The pixels of `rect`.
    static func crop(_ image: PixelBuffer, _ rect: PixelRect) -> PixelBuffer {
        let channels = image.pixelFormat.channels
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rect.width * rect.height * channels)
        for y in rect.y..<rect.maxY {
            let start = (y * image.width + rect.x) * channels
            bytes.append(contentsOf: image.bytes[start..<(start + rect.width * channels)])
        }
        return PixelBuffer(width: rect.width, height: rect.height, pixelFormat: image.pixelFormat, bytes: bytes)
    }

    /// `region` of `image` scaled to `width` × `height` by area averaging (each output pixel the mean of the source
    /// area its footprint covers, partial pixels weighted by coverage), in floating point: the reference the
    /// server's output is compared with.
    static func areaAverage(_ image: PixelBuffer, region: PixelRect, width: Int, height: Int) -> [Double] {
        let channels = image.pixelFormat.channels
        let columns = footprints(origin: region.x, length: region.width, count: width)
        let rows = footprints(origin: region.y, length: region.height, count: height)
        var out = [Double](repeating: 0, count: width * height * channels)
        for (y, rowWeights) in rows.enumerated() {
            for (x, columnWeights) in columns.enumerated() {
                for c in 0..<channels {
                    var sum = 0.0
                    var total = 0.0
                    for (sy, wy) in rowWeights {
                        for (sx, wx) in columnWeights {
                            sum += Double(image.bytes[(sy * image.width + sx) * channels + c]) * wx * wy
                            total += wx * wy
                        }
                    }
                    out[(y * width + x) * channels + c] = sum / total
                }
            }
        }
        return out
    }

    /// For each of `count` output pixels over `origin ..< origin + length`: the source pixels it covers, with the
    /// covered fraction of each.
    private static func footprints(origin: Int, length: Int, count: Int) -> [[(Int, Double)]] {
        (0..<count).map { i in
            let a = Double(origin) + Double(i) * Double(length) / Double(count)
            let b = Double(origin) + Double(i + 1) * Double(length) / Double(count)
            return (Int(a.rounded(.down))..<Int(b.rounded(.up))).map { j in (j, min(b, Double(j + 1)) - max(a, Double(j))) }
                .filter { $0.1 > 1e-9 }
        }
    }

    /// The mean absolute difference between decoded output pixels and a reference.
    static func meanAbsoluteDifference(_ pixels: PixelBuffer, _ reference: [Double]) -> Double {
        zip(pixels.bytes, reference).reduce(0) { $0 + abs(Double($1.0) - $1.1) } / Double(reference.count)
    }

    /// Decodes an image response's body.
    static func decode(_ body: [UInt8]) throws -> PixelBuffer {
        let folder = try TemporaryDirectory(prefix: "iiif-test")
        return try ImageDecoder.decode(path: try folder.write(body, to: "image"))
    }
}
