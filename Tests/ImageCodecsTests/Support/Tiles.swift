import ImageCodecs
import TestSupport

/// Helpers for cutting tiles out of wider buffers and decoding encoder output.
enum Tiles {
    /// A noisy image: every sample seeded-random, so compression cannot hide mistakes.
    static func noise(width: Int, height: Int, format: PixelFormat, seed: UInt64 = 1) -> PixelBuffer {
        var random = SplitMix64(seed: seed)
        let bytes = (0..<width * height * format.channels).map { _ in UInt8.random(in: 0...255, using: &random) }
        return PixelBuffer(width: width, height: height, pixelFormat: format, bytes: bytes)
    }

    /// The `width × height` region at (`x`, `y`) copied out of `image`.
    static func crop(_ image: PixelBuffer, x: Int, y: Int, width: Int, height: Int) -> PixelBuffer {
        let channels = image.pixelFormat.channels
        var bytes: [UInt8] = []
        for row in y..<y + height {
            let start = (row * image.width + x) * channels
            bytes += image.bytes[start..<start + width * channels]
        }
        return PixelBuffer(width: width, height: height, pixelFormat: image.pixelFormat, bytes: bytes)
    }

    /// Calls `encode` with a pointer to (`x`, `y`) inside `image` and the image's row stride: a strided tile.
    static func encodeRegion(
        _ image: PixelBuffer, x: Int, y: Int, width: Int, height: Int,
        _ encode: (UnsafePointer<UInt8>, Int, Int, Int, PixelFormat) throws -> [UInt8]
    ) rethrows -> [UInt8] {
        try image.bytes.withUnsafeBufferPointer { bytes in
            let base = bytes.baseAddress! + (y * image.width + x) * image.pixelFormat.channels
            return try encode(base, width, height, image.rowStride, image.pixelFormat)
        }
    }

    /// Decodes an encoded file through a temporary file.
    static func decode(_ encoded: [UInt8], in directory: TemporaryDirectory, name: String = "tile") throws -> (ImageHeader, PixelBuffer) {
        let path = try directory.write(encoded, to: name)
        return (try ImageDecoder.readHeader(path: path), try ImageDecoder.decode(path: path))
    }
}
