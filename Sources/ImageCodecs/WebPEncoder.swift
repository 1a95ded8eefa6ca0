import CWebP

/// Encodes tiles (or any image up to 16383 pixels a side) to WebP in memory, lossy or lossless, keeping alpha.
///
/// Not Sendable: create one encoder per worker thread (the server's render threads and the slicer's workers each
/// own one). Per-image overhead is libwebp's picture import and one copy of the finished file into the returned
/// array. Gray input is expanded to RGB (WebP has no gray mode; decoders return RGB).
public final class WebPEncoder: ImageEncoder {
    /// Lossy: quality 0–100 as in `cwebp -q`. Lossless: the effort, 0 fastest to 100 smallest.
    public let quality: Int
    /// Lossless (VP8L) instead of lossy (VP8).
    public let lossless: Bool
    /// libwebp's method 0 (fastest) … 6 (smallest); 4 is its default and `vips dzsave`'s.
    public let method: Int
    private let encoder: OpaquePointer

    /// Creates an encoder. Throws `CodecError` (`.invalidArgument`) unless `quality` is 0–100 and `method` 0–6.
    public init(quality: Int = 85, lossless: Bool = false, method: Int = 4) throws {
        guard (0...100).contains(quality), (0...6).contains(method) else {
            throw CodecError(kind: .invalidArgument, message: "WebP quality must be 0–100 and method 0–6, got \(quality) and \(method)")
        }
        guard let encoder = tiler_webp_encoder_create(Int32(quality), lossless ? 1 : 0, Int32(method)) else {
            throw CodecError(kind: .outOfMemory, message: "out of memory creating the WebP encoder")
        }
        self.quality = quality
        self.lossless = lossless
        self.method = method
        self.encoder = encoder
    }

    deinit { tiler_webp_encoder_destroy(encoder) }

    /// Encodes `height` rows of `width` pixels starting at `base`, `rowStride` bytes apart (so a tile can be cut
    /// straight out of a wider strip). Alpha (gray+alpha, RGBA; not premultiplied) is kept.
    ///
    /// Returns the WebP file. O(width × height). Sides over 16383 pixels throw; the encoder stays usable after
    /// any error.
    /// - Precondition: `width`, `height` positive; `rowStride >= width × pixelFormat.channels`.
    public func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, pixelFormat: PixelFormat) throws -> [UInt8] {
        precondition(width > 0 && height > 0, "WebP sides must be positive")
        precondition(rowStride >= width * pixelFormat.channels, "rowStride is shorter than a row")
        guard width <= 16383, height <= 16383 else {
            throw CodecError(kind: .invalidArgument, message: "WebP images are at most 16383 pixels a side, got \(width) × \(height)")
        }
        return try CodecError.encoded("WebP", message: String(cString: tiler_webp_encoder_message(encoder))) {
            tiler_webp_encode(encoder, base, UInt32(width), UInt32(height), rowStride, Int32(pixelFormat.channels), &$0, &$1)
        }
    }
}
