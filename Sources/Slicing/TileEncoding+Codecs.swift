import ImageCodecs

extension ImageEncoder {
    /// Encodes a tile for the pyramid builder with the codec's own `encode(_:width:height:rowStride:pixelFormat:)`:
    /// JPEG drops alpha, PNG and WebP keep it.
    public func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int) throws -> [UInt8] {
        try encode(base, width: width, height: height, rowStride: rowStride, pixelFormat: PixelFormat(channels: channels))
    }
}

extension JPEGEncoder: TileEncoding {}
extension PNGEncoder: TileEncoding {}
extension WebPEncoder: TileEncoding {}

extension PixelFormat {
    /// The layout with `channels` interleaved 8-bit samples.
    /// - Precondition: `channels` is 1 ... 4.
    init(channels: Int) {
        guard let format = PixelFormat(rawValue: channels) else { preconditionFailure("channels must be 1 ... 4, got \(channels)") }
        self = format
    }
}
