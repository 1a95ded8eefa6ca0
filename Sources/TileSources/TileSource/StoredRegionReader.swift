import ImageCodecs
import TileGeometry

/// Pixels of one stored level of a ``StoredPyramid`` shrunk to a coarser level: reads only the stored tiles the
/// region covers, decodes each once, and averages every output pixel over the source pixels it stands for (an area
/// average, separable: each source pixel weighted by how much of it the output pixel covers; at a factor of exactly 2
/// that is the 2×2 box mean `tiler slice` uses, an odd last row or column averaging only the pixels that exist).
package struct StoredRegionReader {
    package let pyramid: any StoredPyramid
    /// The stored level read, its index in ``StoredPyramid/storedLevels``.
    package let level: Int
    package let stored: StoredLevel
    /// The conversion to sRGB of the stored pixels, if they need one (done before any averaging, as `tiler slice`
    /// converts rows as they are decoded).
    package let colour: StoredColour?

    /// The pixels of `rect` of a level `levelWidth` × `levelHeight` (no larger than the stored level).
    ///
    /// - Complexity: decodes the stored tiles under the region (at most 5 × 5 of 256-pixel tiles at a factor of 4);
    ///   O(source pixels) arithmetic.
    package func pixels(of rect: PixelRect, levelWidth: Int, levelHeight: Int) throws -> PixelBuffer {
        let fx = Double(stored.width) / Double(levelWidth)
        let fy = Double(stored.height) / Double(levelHeight)
        let sx0 = Int((Double(rect.x) * fx).rounded(.down))
        let sy0 = Int((Double(rect.y) * fy).rounded(.down))
        let sx1 = min(stored.width, Int((Double(rect.maxX) * fx).rounded(.up)))
        let sy1 = min(stored.height, Int((Double(rect.maxY) * fy).rounded(.up)))
        let source = try region(x0: sx0, y0: sy0, x1: sx1, y1: sy1)
        if sx1 - sx0 == rect.width && sy1 - sy0 == rect.height { return source }
        let columns = Self.weights(count: rect.width, start: rect.x, factor: fx, sourceStart: sx0, sourceEnd: sx1)
        let rows = Self.weights(count: rect.height, start: rect.y, factor: fy, sourceStart: sy0, sourceEnd: sy1)
        return Self.resample(source, columns: columns, rows: rows)
    }

    /// The pixels of `rect` of the level that is the stored level halved `halvings` times (sizes rounded up): the
    /// stored region under it, box-halved that many times (an odd last row or column averaging what exists).
    package func halvedPixels(of rect: PixelRect, halvings: Int) throws -> PixelBuffer {
        let x0 = rect.x << halvings
        let y0 = rect.y << halvings
        var pixels = try region(
            x0: x0, y0: y0, x1: min(stored.width, rect.maxX << halvings), y1: min(stored.height, rect.maxY << halvings))
        for _ in 0..<halvings { pixels = pixels.halved() }
        return pixels
    }

    /// The stored pixels of `x0..<x1` × `y0..<y1`, in sRGB.
    private func region(x0: Int, y0: Int, x1: Int, y1: Int) throws -> PixelBuffer {
        let pixels = try pyramid.region(level: level, x0: x0, y0: y0, x1: x1, y1: y1)
        return colour?.converted(pixels) ?? pixels
    }

    /// For each of `count` output pixels starting at `start` (in the coarse level), the source pixels it covers
    /// (relative to `sourceStart`) and their weights, summing to 1.
    package static func weights(count: Int, start: Int, factor: Double, sourceStart: Int, sourceEnd: Int) -> [[(index: Int, weight: Float)]] {
        (0..<count).map { offset in
            let a = Double(start + offset) * factor
            let b = min(Double(start + offset + 1) * factor, Double(sourceEnd))
            var taps: [(index: Int, weight: Float)] = []
            var total = 0.0
            var x = Int(a.rounded(.down))
            while Double(x) < b {
                let cover = min(Double(x + 1), b) - max(Double(x), a)
                if cover > 1e-9 {
                    taps.append((x - sourceStart, Float(cover)))
                    total += cover
                }
                x += 1
            }
            return taps.map { ($0.index, $0.weight / Float(total)) }
        }
    }

    /// `source` averaged with the given column and row taps.
    package static func resample(_ source: PixelBuffer, columns: [[(index: Int, weight: Float)]], rows: [[(index: Int, weight: Float)]])
        -> PixelBuffer
    {
        let channels = source.pixelFormat.channels
        let width = columns.count
        var horizontal = [Float](repeating: 0, count: width * source.height * channels)
        source.bytes.withUnsafeBufferPointer { input in
            for y in 0..<source.height {
                let row = y * source.width * channels
                for (x, taps) in columns.enumerated() {
                    for c in 0..<channels {
                        var sum: Float = 0
                        for tap in taps { sum += Float(input[row + tap.index * channels + c]) * tap.weight }
                        horizontal[(y * width + x) * channels + c] = sum
                    }
                }
            }
        }
        var bytes = [UInt8](repeating: 0, count: width * rows.count * channels)
        for (y, taps) in rows.enumerated() {
            for x in 0..<width {
                for c in 0..<channels {
                    var sum: Float = 0
                    for tap in taps { sum += horizontal[(tap.index * width + x) * channels + c] * tap.weight }
                    bytes[(y * width + x) * channels + c] = UInt8(max(0, min(255, sum.rounded())))
                }
            }
        }
        return PixelBuffer(width: width, height: rows.count, pixelFormat: source.pixelFormat, bytes: bytes)
    }
}
