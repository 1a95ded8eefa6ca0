/// How a TIFF page is stored: the facts `tiler info` shows and the reader chose its path by.
public struct TIFFLayout: Sendable, Equatable {
    /// How rows are decoded, chosen from the layout.
    public enum ReadPath: String, Sendable {
        /// Contiguous strips, one decoded row at a time: memory O(width), whatever the strips' height.
        case scanlines
        /// Separate planes in strips: one strip of every plane at a time.
        case strips
        /// Tiles: one row of tiles (every plane) at a time, memory O(tile height × width).
        case tiles
        /// libtiff's RGBA interface, for photometrics only it converts (YCbCr without JPEG, CIE L*a*b*, LogLuv).
        case rgba
    }

    /// Tiled (`true`) or striped.
    public var tiled: Bool
    /// Tile width and height in pixels (tiled only).
    public var tileWidth: Int?
    /// Tile height in pixels (tiled only).
    public var tileHeight: Int?
    /// Rows per strip (striped only).
    public var rowsPerStrip: Int?
    /// The TIFF Compression code (1 none, 5 LZW, 7 JPEG, 8 Deflate, 32773 PackBits, 50000 ZSTD, …).
    public var compression: Int
    /// libtiff's name for it, e.g. `"LZW"`, `"AdobeDeflate"`.
    public var compressionName: String
    /// Predictor: 1 none, 2 horizontal differencing, 3 floating point.
    public var predictor: Int
    /// Samples stored in separate planes (PlanarConfiguration 2).
    public var separatePlanes: Bool
    /// Samples per pixel as stored (including extra samples).
    public var samplesPerPixel: Int
    /// The TIFF PhotometricInterpretation.
    public var photometric: Int
    /// Alpha in an extra sample: `"associated"` (premultiplied, undone while reading), `"unassociated"`, or nil.
    public var alpha: String?
    /// A BigTIFF (64-bit offsets).
    public var bigTIFF: Bool
    /// The page being read, from 0.
    public var page: Int
    /// Pages (directories) in the file's main chain.
    public var pageCount: Int
    /// NewSubfileType marks this page as a reduced-resolution image.
    public var reducedResolution: Bool
    /// Reduced-resolution images stored as SubIFDs of this page (a pyramid's other levels; not read).
    public var subIFDCount: Int
    /// How rows are decoded.
    public var readPath: ReadPath
}
