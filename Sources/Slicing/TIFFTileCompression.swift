/// How a pyramidal TIFF's tiles are compressed, as the tile format asks: JPEG (`jpg`, compression 7, with shared
/// `JPEGTables`), WebP (`webp`, compression 50001, each tile a whole WebP file, as libtiff and libvips store it) or
/// Deflate (`png`: lossless, compression 8 with Predictor 2, as libtiff writes it).
enum TIFFTileCompression: Sendable {
    case jpeg
    case webp
    case deflate

    /// The compression for tiles of the format with file extension `fileExtension`, or nil when a TIFF cannot hold it.
    init?(fileExtension: String) {
        switch fileExtension {
        case "jpg": self = .jpeg
        case "webp": self = .webp
        case "png": self = .deflate
        default: return nil
        }
    }

    /// The TIFF Compression tag's value.
    var tag: Int {
        switch self {
        case .jpeg: 7
        case .webp: 50001
        case .deflate: 8
        }
    }

    /// The samples per pixel stored for a source of `channels` (1 … 4): WebP has no grey (grey is stored as RGB, grey
    /// and alpha as RGBA); JPEG and Deflate store the source's. (A JPEG TIFF of a source with alpha is refused before.)
    func storedChannels(source channels: Int) -> Int {
        self == .webp && channels <= 2 ? channels + 2 : channels
    }
}
