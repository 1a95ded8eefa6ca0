import ImageCodecs

/// Cutting regions out of a benchmark image.
enum Tiles {
    /// The top-left `side × side` square of `image`.
    static func crop(_ image: PixelBuffer, side: Int) -> PixelBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(side * side * 3)
        for y in 0..<side { bytes += image.bytes[y * image.rowStride..<y * image.rowStride + side * 3] }
        return PixelBuffer(width: side, height: side, pixelFormat: .rgb, bytes: bytes)
    }
}
