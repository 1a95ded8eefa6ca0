/// A whole decoded image in memory: rows top to bottom, `width × pixelFormat.channels` bytes each, no padding.
public struct PixelBuffer: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The layout of each pixel.
    public var pixelFormat: PixelFormat
    /// `height × width × pixelFormat.channels` bytes.
    public var bytes: [UInt8]

    /// Wraps `bytes`.
    /// - Precondition: `bytes.count == width × height × pixelFormat.channels`.
    public init(width: Int, height: Int, pixelFormat: PixelFormat, bytes: [UInt8]) {
        precondition(width >= 0 && height >= 0 && bytes.count == width * height * pixelFormat.channels, "PixelBuffer size mismatch")
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        self.bytes = bytes
    }

    /// Bytes per row: `width × pixelFormat.channels`.
    public var rowStride: Int { width * pixelFormat.channels }
}
