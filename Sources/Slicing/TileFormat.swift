import ImageCodecs

/// The file format of a pyramid's tiles, with its encoder settings.
public enum TileFormat: Sendable, Equatable {
    /// JPEG tiles (4:2:0 chroma); alpha, if any, is dropped.
    case jpeg(quality: Int = 85, optimizeHuffman: Bool = false)
    /// Lossless PNG tiles at a zlib level 0–9.
    case png(compressionLevel: Int = 6)
    /// WebP tiles: lossy at `quality` 0–100, or lossless (then `quality` is the effort); alpha is kept.
    case webp(quality: Int = 85, lossless: Bool = false)

    /// The choice `--format auto` makes: PNG when the source has alpha, JPEG otherwise.
    public static func automatic(for pixelFormat: PixelFormat, quality: Int = 85, pngLevel: Int = 6) -> TileFormat {
        pixelFormat.hasAlpha ? .png(compressionLevel: pngLevel) : .jpeg(quality: quality)
    }

    /// The tile file extension and `.dzi` Format: `jpg`, `png` or `webp`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        }
    }

    /// Slice options writing tiles in this format; one encoder is made per worker thread.
    public func sliceOptions() -> SliceOptions {
        switch self {
        case .jpeg(let quality, let optimize):
            SliceOptions(fileExtension: fileExtension) { try JPEGEncoder(quality: quality, optimizeHuffman: optimize) }
        case .png(let level):
            {
                var options = SliceOptions(fileExtension: fileExtension) { try PNGEncoder(compressionLevel: level) }
                options.compressionLevel = level
                return options
            }()
        case .webp(let quality, let lossless):
            SliceOptions(fileExtension: fileExtension) { try WebPEncoder(quality: quality, lossless: lossless) }
        }
    }
}
