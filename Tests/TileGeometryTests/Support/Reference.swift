import Foundation
import TileGeometry

/// An independent model of the Deep Zoom formulas, computed differently from the library (loops, repeated halving,
/// `Double` arithmetic and libm), to check it against.
enum Reference {
    /// The smallest `m` with `2^m ≥ max(width, height)`, by counting.
    static func maxLevel(width: Int, height: Int) -> Int {
        var level = 0
        while (1 << level) < max(width, height) { level += 1 }
        return level
    }

    /// Every level's size, by halving the full size (rounding up) once per level.
    static func levelSizes(width: Int, height: Int) -> [(width: Int, height: Int)] {
        var sizes = [(width, height)]
        for _ in 0..<maxLevel(width: width, height: height) {
            let (w, h) = sizes[0]
            sizes.insert(((w + 1) / 2, (h + 1) / 2), at: 0)
        }
        return sizes
    }

    /// `ceil(extent / tileSize)` in `Double`.
    static func tileCount(_ extent: Int, tileSize: Int) -> Int {
        Int((Double(extent) / Double(tileSize)).rounded(.up))
    }

    /// The full-resolution span of tile `index` along an axis of `extent` pixels, `x = index · T · 2^k`, in `Double`.
    static func frameSpan(_ index: Int, tileSize: Int, scaleShift k: Int, extent: Int) -> (start: Double, length: Double) {
        let span = Double(tileSize) * pow(2, Double(k))
        let start = Double(index) * span
        return (start, min(start + span, Double(extent)) - start)
    }

    /// The spec's level formula with libm: `ceil(maxLevel + log2(zoomScale · contentScale) − 1e-9)`, clamped.
    static func level(maxLevel: Int, zoomScale: Double, contentScale: Double) -> Int {
        let raw = (Double(maxLevel) + log2(zoomScale * contentScale) - 1e-9).rounded(.up)
        return Int(min(max(raw, 0), Double(maxLevel)))
    }

    /// Whether the half-open frame span `[start, start + length)` meets `[low, high]` with positive length.
    static func meets(_ span: (start: Double, length: Double), _ low: Double, _ high: Double) -> Bool {
        min(span.start + span.length, high) - max(span.start, low) > 0
    }
}

/// An image size as a test argument.
struct ImageSize: Sendable, CustomStringConvertible {
    let width: Int
    let height: Int

    init(_ width: Int, _ height: Int) {
        self.width = width
        self.height = height
    }

    var description: String { "\(width)×\(height)" }

    /// Sizes that exercise the edges: 1×1, strips, around powers of two, primes, very long and thin.
    static let edgeCases: [ImageSize] = [
        ImageSize(1, 1), ImageSize(1, 2), ImageSize(2, 1), ImageSize(1, 1000), ImageSize(1000, 1), ImageSize(3, 5),
        ImageSize(255, 255), ImageSize(256, 256), ImageSize(257, 257), ImageSize(255, 257), ImageSize(511, 512),
        ImageSize(512, 513), ImageSize(513, 511), ImageSize(7919, 104_729), ImageSize(65_537, 65_521),
        ImageSize(100_000, 3), ImageSize(3, 100_000), ImageSize(1 << 31, 1 << 31),
    ]
}
