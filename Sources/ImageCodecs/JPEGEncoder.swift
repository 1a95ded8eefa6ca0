import CJPEG

/// Encodes tiles to JPEG in memory, reusing one libjpeg compressor and output buffer for every tile.
///
/// Not Sendable: create one encoder per worker thread. Per-tile overhead is one copy of the finished
/// file into the returned array.
public final class JPEGEncoder: ImageEncoder {
    /// Quality 1–100.
    public let quality: Int
    /// Whether to compute optimised Huffman tables (smaller files, roughly half the speed).
    public let optimizeHuffman: Bool
    /// Chroma sampling for colour input (gray input stays one channel).
    public let subsampling: ChromaSubsampling
    private let encoder: OpaquePointer

    /// Creates an encoder. Throws `CodecError` (`.invalidArgument`) unless `quality` is 1–100.
    public init(quality: Int = 85, optimizeHuffman: Bool = false, subsampling: ChromaSubsampling = .s420) throws {
        guard (1...100).contains(quality) else {
            throw CodecError(kind: .invalidArgument, message: "JPEG quality must be 1–100, got \(quality)")
        }
        let sampling: Int32
        switch subsampling {
        case .s444: sampling = TILER_JPEG_SUBSAMPLING_444
        case .s422: sampling = TILER_JPEG_SUBSAMPLING_422
        case .s420: sampling = TILER_JPEG_SUBSAMPLING_420
        }
        guard let encoder = tiler_jpeg_encoder_create(Int32(quality), optimizeHuffman ? 1 : 0, sampling) else {
            throw CodecError(kind: .outOfMemory, message: "out of memory creating the JPEG encoder")
        }
        self.quality = quality
        self.optimizeHuffman = optimizeHuffman
        self.subsampling = subsampling
        self.encoder = encoder
    }

    deinit { tiler_jpeg_encoder_destroy(encoder) }

    /// Encodes `height` rows of `width` pixels starting at `base`, `rowStride` bytes apart, so a tile
    /// can be cut straight out of a wider strip. RGBA drops alpha; gray+alpha uses the gray samples.
    ///
    /// Returns the JPEG file. O(width × height).
    /// Sides over 65500 pixels (libjpeg's limit) throw; the encoder stays usable after any error.
    /// - Precondition: `width` and `height` are positive and fit 32 bits; `rowStride >= width × pixelFormat.channels`.
    public func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, pixelFormat: PixelFormat) throws -> [UInt8] {
        precondition((1...Int(UInt32.max)).contains(width) && (1...Int(UInt32.max)).contains(height), "JPEG sides must be positive")
        precondition(rowStride >= width * pixelFormat.channels, "rowStride is shorter than a row")
        return try CodecError.encoded("JPEG", message: String(cString: tiler_jpeg_encoder_message(encoder))) {
            tiler_jpeg_encode(encoder, base, UInt32(width), UInt32(height), rowStride, Int32(pixelFormat.channels), &$0, &$1)
        }
    }
}
