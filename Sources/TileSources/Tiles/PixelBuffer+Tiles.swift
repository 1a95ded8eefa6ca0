import ImageCodecs
import Slicing

extension PixelBuffer {
    /// A blank (zero) image of `width` × `height` pixels in `format`.
    package static func blank(width: Int, height: Int, format: PixelFormat) -> PixelBuffer {
        PixelBuffer(width: width, height: height, pixelFormat: format, bytes: [UInt8](repeating: 0, count: width * height * format.channels))
    }

    /// Copies `tile` into this image with its top-left corner at (`x`, `y`), clipped to this image.
    package mutating func paste(_ tile: PixelBuffer, x: Int, y: Int) {
        let channels = pixelFormat.channels
        let from = tile.pixelFormat.channels
        let run = max(0, min(tile.width, width - x))
        guard run > 0 else { return }
        for row in 0..<min(tile.height, height - y) {
            for column in 0..<run {
                let source = (row * tile.width + column) * from
                let target = ((y + row) * width + x + column) * channels
                for c in 0..<channels { bytes[target + c] = tile.bytes[source + min(c, from - 1)] }
            }
        }
    }

    /// This image shrunk by 2 in each direction (rounding up): `tiler slice`'s halving itself (``Downsample``), each
    /// pixel the mean of the 2×2 (or, at an odd last row or column, 2 or 1) pixels it covers, colours weighted by alpha
    /// where there is alpha — so a lossless stored level gives the very pixels `tiler slice` gives below it.
    package func halved() -> PixelBuffer {
        let channels = pixelFormat.channels
        let outWidth = (width + 1) / 2
        let outHeight = (height + 1) / 2
        guard width > 0, height > 0 else { return PixelBuffer(width: outWidth, height: outHeight, pixelFormat: pixelFormat, bytes: []) }
        var out = [UInt8](repeating: 0, count: outWidth * outHeight * channels)
        bytes.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                for y in 0..<outHeight {
                    let top = input.baseAddress! + 2 * y * width * channels
                    let bottom = 2 * y + 1 < height ? top + width * channels : nil
                    Downsample.shrinkRow(top, bottom, width: width, channels: channels, into: output.baseAddress! + y * outWidth * channels)
                }
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, pixelFormat: pixelFormat, bytes: out)
    }

    /// The image encoded as a tile file: JPEG at `quality` for `jpg`, else PNG.
    package func encoded(format: String, quality: Int) throws -> [UInt8] {
        if format == "jpg" || format == "jpeg" {
            return try JPEGEncoder(quality: quality).encode(self)
        }
        return try PNGEncoder().encode(self)
    }
}
