import ImageCodecs

/// The output image being filled row by row, mirrored and rotated as it is filled: row `y` of the scaled
/// (unrotated) image lands where mirroring, then a clockwise rotation by `quarterTurns` × 90°, puts it.
struct OutputImage {
    /// The scaled image's width (before rotation).
    let width: Int
    /// The scaled image's height (before rotation).
    let height: Int
    /// Channels per pixel (1–4).
    let channels: Int
    /// Whether rows are mirrored left–right before rotating.
    let mirrored: Bool
    /// Clockwise quarter turns, 0…3.
    let quarterTurns: Int
    /// The pixels, `outputWidth × outputHeight × channels` bytes.
    private(set) var pixels: [UInt8]

    /// An output image of `width` × `height` pixels (before rotation).
    init(width: Int, height: Int, channels: Int, mirrored: Bool, quarterTurns: Int) {
        self.width = width
        self.height = height
        self.channels = channels
        self.mirrored = mirrored
        self.quarterTurns = quarterTurns
        pixels = [UInt8](repeating: 0, count: width * height * channels)
    }

    /// The width after rotation.
    var outputWidth: Int { quarterTurns % 2 == 0 ? width : height }
    /// The height after rotation.
    var outputHeight: Int { quarterTurns % 2 == 0 ? height : width }

    /// The pixel format of ``pixels``.
    var pixelFormat: PixelFormat { PixelFormat(rawValue: channels)! }

    /// Places scaled row `y` (`width` pixels at `row`).
    mutating func place(row: UnsafePointer<UInt8>, y: Int) {
        let channels = self.channels
        let (width, height, outputWidth) = (self.width, self.height, self.outputWidth)
        let (mirrored, quarterTurns) = (self.mirrored, self.quarterTurns)
        pixels.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            if quarterTurns == 0 && !mirrored {
                (base + y * width * channels).update(from: row, count: width * channels)
                return
            }
            for x in 0..<width {
                let u = mirrored ? width - 1 - x : x
                let (ox, oy): (Int, Int)
                switch quarterTurns {
                case 0: (ox, oy) = (u, y)
                case 1: (ox, oy) = (height - 1 - y, u)
                case 2: (ox, oy) = (width - 1 - u, height - 1 - y)
                default: (ox, oy) = (y, width - 1 - u)
                }
                (base + (oy * outputWidth + ox) * channels).update(from: row + x * channels, count: channels)
            }
        }
    }
}
