import ImageCodecs

/// The output image being filled row by row: each scaled row gets the request's quality, then lands where
/// mirroring and a clockwise rotation by `quarterTurns` × 90° put it.
package struct OutputImage {
    /// The scaled image's width (before rotation).
    package let width: Int
    /// The scaled image's height (before rotation).
    package let height: Int
    /// Channels per pixel of the scaled rows given to ``place(_:y:)`` (1–4).
    package let sourceChannels: Int
    /// Channels per pixel of the output, after the quality (1–4).
    package let channels: Int
    /// The quality applied to every row.
    package let quality: IIIFQuality
    /// Whether rows are mirrored left–right before rotating.
    package let mirrored: Bool
    /// Clockwise quarter turns, 0…3.
    package let quarterTurns: Int
    /// The pixels, `outputWidth × outputHeight × channels` bytes.
    package private(set) var pixels: [UInt8]
    private var adjusted: [UInt8]

    /// The empty output of `request`, whose scaled rows have `sourceChannels` channels.
    package init(for request: IIIFImageRequest, sourceChannels: Int) {
        width = request.width
        height = request.height
        self.sourceChannels = sourceChannels
        channels = PixelRows.channels(sourceChannels, after: request.quality)
        quality = request.quality
        mirrored = request.mirrored
        quarterTurns = request.quarterTurns
        pixels = [UInt8](repeating: 0, count: width * height * channels)
        adjusted = [UInt8](repeating: 0, count: width * channels)
    }

    /// The width after rotation.
    package var outputWidth: Int { quarterTurns % 2 == 0 ? width : height }
    /// The height after rotation.
    package var outputHeight: Int { quarterTurns % 2 == 0 ? height : width }

    /// The pixel format of ``pixels``.
    package var pixelFormat: PixelFormat { PixelFormat(rawValue: channels)! }

    /// Applies the quality to scaled row `y` (`width × sourceChannels` bytes) and places it.
    package mutating func place(_ row: [UInt8], y: Int) {
        let (quality, sourceChannels, width) = (self.quality, self.sourceChannels, self.width)
        row.withUnsafeBufferPointer { scaled in
            adjusted.withUnsafeMutableBufferPointer { out in
                PixelRows.apply(quality, scaled.baseAddress!, channels: sourceChannels, count: width, into: out.baseAddress!)
            }
        }
        let (channels, height, outputWidth) = (self.channels, self.height, self.outputWidth)
        let (mirrored, quarterTurns) = (self.mirrored, self.quarterTurns)
        adjusted.withUnsafeBufferPointer { adjusted in
            let row = adjusted.baseAddress!
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
}
