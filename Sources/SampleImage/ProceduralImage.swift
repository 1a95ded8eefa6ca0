/// A deterministic, photo-like procedural picture of any size: a shaded terrain of fractal value noise coloured
/// like an aerial photograph (sea, beaches, forests, rock and snow) with fine film grain.
///
/// Any band of rows can be rendered independently and in any order, from any thread, with the same result, so
/// a gigapixel image can be produced strip by strip in memory bounded by its width. Rendering costs O(octaves)
/// per pixel with about 13 octaves for a 32768-pixel image.
public struct ProceduralImage: Sendable {
    /// The image width, in pixels (≥ 1).
    public let width: Int
    /// The image height, in pixels (≥ 1).
    public let height: Int
    /// The seed: the same seed and size give the same pixels.
    public let seed: UInt64
    /// Channels per pixel: always 3 (8-bit RGB).
    public var channels: Int { 3 }

    let octaves: [NoiseOctave]
    let palette: [UInt8]

    /// Creates the picture of a `width` × `height` image.
    ///
    /// - Precondition: `width ≥ 1` and `height ≥ 1`.
    public init(width: Int, height: Int, seed: UInt64 = 1) {
        precondition(width >= 1 && height >= 1, "image size must be at least 1×1")
        self.width = width
        self.height = height
        self.seed = seed
        // The largest feature spans about half the image; octaves halve down to 2-pixel cells.
        var cell = max(Double(max(width, height)) / 2, 4)
        var amplitude: Float = 1
        var octaves: [NoiseOctave] = []
        var index: UInt64 = 0
        while cell >= 2 {
            octaves.append(NoiseOctave(cell: cell, amplitude: amplitude, seed: seed &+ index &* 0x9E37_79B9_7F4A_7C15, width: width))
            cell /= 2
            amplitude *= 0.55
            index += 1
        }
        self.octaves = octaves
        self.palette = ProceduralImage.makePalette()
    }

    /// Renders rows `startRow ..< startRow + rowCount` as 8-bit RGB into `buffer` (stride `width × 3` bytes).
    ///
    /// - Precondition: the rows lie inside the image and `buffer` holds `rowCount × width × 3` bytes.
    /// - Complexity: O(rowCount × width × octaves).
    public func renderRows(startRow: Int, rowCount: Int, into buffer: UnsafeMutablePointer<UInt8>) {
        precondition(startRow >= 0 && rowCount >= 0 && startRow + rowCount <= height, "rows outside the image")
        var above = [Float](repeating: 0, count: width)
        var current = [Float](repeating: 0, count: width)
        var scratch = [Float](repeating: 0, count: width)
        if rowCount > 0 { heightRow(max(startRow - 1, 0), into: &above, scratch: &scratch) }
        for r in 0..<rowCount {
            let y = startRow + r
            heightRow(y, into: &current, scratch: &scratch)
            shadeRow(y, heights: current, above: above, into: buffer + r * width * 3)
            swap(&above, &current)
        }
    }
}
