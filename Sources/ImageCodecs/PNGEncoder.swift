import CPNG

/// Encodes tiles to 8-bit PNG in memory (gray, gray+alpha, RGB, RGBA), reusing its output buffer.
///
/// Not Sendable: create one encoder per worker thread. Per-tile overhead is a fresh libpng write
/// struct (libpng cannot reuse one) and one copy of the finished file into the returned array.
public final class PNGEncoder: ImageEncoder {
    /// The PNG row filter to use (filter method 0).
    public enum Filter: Sendable, CaseIterable {
        /// No filtering: fastest, largest for photographs.
        case none
        /// Difference from the pixel to the left: cheap, and good on photographs.
        case sub
        /// Difference from the pixel above.
        case up
        /// Difference from the mean of left and above.
        case average
        /// Paeth predictor.
        case paeth
        /// libpng tries all five on every row and keeps the smallest (slowest).
        case adaptive
    }

    /// zlib level 0–9.
    public let compressionLevel: Int
    /// The row filter.
    public let filter: Filter
    private let encoder: OpaquePointer

    /// Creates an encoder. Throws `CodecError` (`.invalidArgument`) unless `compressionLevel` is 0–9.
    public init(compressionLevel: Int = 6, filter: Filter = .sub) throws {
        guard (0...9).contains(compressionLevel) else {
            throw CodecError(kind: .invalidArgument, message: "PNG compression level must be 0–9, got \(compressionLevel)")
        }
        let code: Int32
        switch filter {
        case .none: code = TILER_PNG_FILTER_NONE
        case .sub: code = TILER_PNG_FILTER_SUB
        case .up: code = TILER_PNG_FILTER_UP
        case .average: code = TILER_PNG_FILTER_AVG
        case .paeth: code = TILER_PNG_FILTER_PAETH
        case .adaptive: code = TILER_PNG_FILTER_ADAPTIVE
        }
        guard let encoder = tiler_png_encoder_create(Int32(compressionLevel), code) else {
            throw CodecError(kind: .outOfMemory, message: "out of memory creating the PNG encoder")
        }
        self.compressionLevel = compressionLevel
        self.filter = filter
        self.encoder = encoder
    }

    deinit { tiler_png_encoder_destroy(encoder) }

    /// Encodes `height` rows of `width` pixels starting at `base`, `rowStride` bytes apart, so a tile
    /// can be cut straight out of a wider strip.
    ///
    /// Returns the PNG file. O(width × height).
    /// - Precondition: `width` and `height` are 1...2^31−1; `rowStride >= width × pixelFormat.channels`.
    public func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, pixelFormat: PixelFormat) throws -> [UInt8] {
        precondition((1...Int(Int32.max)).contains(width) && (1...Int(Int32.max)).contains(height), "PNG sides are 1...2^31-1 pixels")
        precondition(rowStride >= width * pixelFormat.channels, "rowStride is shorter than a row")
        return try CodecError.encoded("PNG", message: String(cString: tiler_png_encoder_message(encoder))) {
            tiler_png_encode(encoder, base, UInt32(width), UInt32(height), rowStride, Int32(pixelFormat.channels), &$0, &$1)
        }
    }
}
