/// An encoder of 8-bit pixels into an image file in memory: ``JPEGEncoder``, ``PNGEncoder``, ``WebPEncoder``.
///
/// An encoder keeps its C state and output buffer between images, so it is not Sendable: create one per thread.
public protocol ImageEncoder: AnyObject {
    /// Encodes `height` rows of `width` pixels starting at `base`, `rowStride` bytes apart, so that a tile can be cut
    /// straight out of a wider strip, and returns the file. O(width × height). The encoder stays usable after an error.
    ///
    /// - Precondition: `width` and `height` are positive; `rowStride >= width × pixelFormat.channels`.
    func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, pixelFormat: PixelFormat) throws -> [UInt8]
}

extension ImageEncoder {
    /// Encodes a whole `PixelBuffer`. O(pixels).
    public func encode(_ image: PixelBuffer) throws -> [UInt8] {
        try image.bytes.withUnsafeBufferPointer { bytes in
            try encode(bytes.baseAddress!, width: image.width, height: image.height, rowStride: image.rowStride, pixelFormat: image.pixelFormat)
        }
    }
}
