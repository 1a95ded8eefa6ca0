/// What a finished slice produced and what it cost.
public struct SliceSummary: Sendable, Hashable, Codable {
    /// The image width in pixels.
    public var width: Int
    /// The image height in pixels.
    public var height: Int
    /// Samples per pixel of the source (and of the tiles handed to the encoder).
    public var channels: Int
    /// Pyramid levels written (`maxLevel + 1`, down to 1×1; for a TIFF, the levels stored, down to one tile).
    public var levels: Int
    /// Tile files written.
    public var tiles: Int
    /// Bytes of tile files written (the `.dzi` not included).
    public var bytesWritten: Int
    /// Wall-clock seconds from start to the pyramid being in place.
    public var seconds: Double
    /// Source megapixels per wall-clock second.
    public var megapixelsPerSecond: Double
    /// The process's peak resident set size in bytes (`VmHWM`), or `nil` where it cannot be read (not Linux).
    /// Process-wide: it includes whatever else the process did before.
    public var peakResidentBytes: Int?
    /// The most bytes the builder's strip and row buffers held at once: bounded by width, never by height.
    public var peakBufferBytes: Int
    /// The path of the `.dzi` written.
    public var dziPath: String
    /// The path of the `_files` folder written (for an SZI: where it would be; nothing is there).
    public var filesPath: String
    /// How the pyramid is stored.
    public var container: String = PyramidContainer.folder.rawValue
    /// What was published: the `.dzi` of a folder pyramid, or the `.szi`.
    public var path: String = ""
    /// The size of the one file written (an SZI: tiles, names and directory), in bytes; nil for a folder.
    public var fileBytes: Int?
}
