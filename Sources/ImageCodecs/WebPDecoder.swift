import CWebP

/// Decodes WebP files held in memory (tiles: whole images, at most 16383 pixels a side).
public enum WebPDecoder {
    /// What a WebP file's header says.
    public struct Info: Sendable, Equatable {
        /// Width in pixels.
        public var width: Int
        /// Height in pixels.
        public var height: Int
        /// Whether the file has an alpha channel.
        public var hasAlpha: Bool
        /// Lossless (VP8L) rather than lossy (VP8); nil when the file mixes them (animation) or does not say.
        public var lossless: Bool?
    }

    /// Reads the header of `bytes`. Throws `CodecError` (`.corrupt`) unless it is a WebP file. O(header).
    public static func info(_ bytes: [UInt8]) throws -> Info {
        var raw = tiler_webp_info()
        let status = bytes.withUnsafeBufferPointer { tiler_webp_get_info($0.baseAddress, $0.count, &raw) }
        guard status == TILER_WEBP_OK, raw.width > 0, raw.height > 0 else {
            throw CodecError(kind: .corrupt, message: "not a WebP file, or its header is damaged")
        }
        return Info(
            width: Int(raw.width), height: Int(raw.height), hasAlpha: raw.has_alpha != 0, lossless: raw.lossless < 0 ? nil : raw.lossless == 1)
    }

    /// Decodes `bytes` to RGBA when the file has alpha, else RGB. Memory O(width × height).
    public static func decode(_ bytes: [UInt8]) throws -> PixelBuffer {
        let info = try info(bytes)
        let format: PixelFormat = info.hasAlpha ? .rgba : .rgb
        let stride = info.width * format.channels
        var status: Int32 = 0
        let pixels = [UInt8](unsafeUninitializedCapacity: stride * info.height) { buffer, initialized in
            status = bytes.withUnsafeBufferPointer { tiler_webp_decode($0.baseAddress, $0.count, buffer.baseAddress, stride, Int32(format.channels)) }
            initialized = status == TILER_WEBP_OK ? stride * info.height : 0
        }
        guard status == TILER_WEBP_OK else { throw CodecError(kind: .corrupt, message: "damaged WebP data") }
        return PixelBuffer(width: info.width, height: info.height, pixelFormat: format, bytes: pixels)
    }
}
