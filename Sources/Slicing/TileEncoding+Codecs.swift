import ImageCodecs

extension JPEGEncoder: TileEncoding {
    /// Encodes a tile for the pyramid builder; alpha, if any, is dropped.
    public func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int) throws -> [UInt8] {
        try encode(base, width: width, height: height, rowStride: rowStride, pixelFormat: PixelFormat(channels: channels))
    }
}

extension PNGEncoder: TileEncoding {
    /// Encodes a tile for the pyramid builder, losslessly.
    public func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int) throws -> [UInt8] {
        try encode(base, width: width, height: height, rowStride: rowStride, pixelFormat: PixelFormat(channels: channels))
    }
}

extension WebPEncoder: TileEncoding {
    /// Encodes a tile for the pyramid builder; alpha is kept.
    public func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int) throws -> [UInt8] {
        try encode(base, width: width, height: height, rowStride: rowStride, pixelFormat: PixelFormat(channels: channels))
    }
}

extension PixelFormat {
    /// The layout with `channels` interleaved 8-bit samples.
    /// - Precondition: `channels` is 1 ... 4.
    init(channels: Int) {
        guard let format = PixelFormat(rawValue: channels) else { preconditionFailure("channels must be 1 ... 4, got \(channels)") }
        self = format
    }
}
