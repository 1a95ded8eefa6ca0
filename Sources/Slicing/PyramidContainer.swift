/// How a slice stores its pyramid.
public enum PyramidContainer: String, Sendable, CaseIterable {
    /// `NAME.dzi` beside `NAME_files/LEVEL/COL_ROW.EXT`: one file per tile.
    case folder
    /// `NAME.szi`: one stored ZIP holding `NAME/NAME.dzi` and `NAME/NAME_files/LEVEL/COL_ROW.EXT`, the same bytes as the
    /// folder layout's (libvips' `dzsave --container zip` format).
    case szi
    /// `NAME.tif`: one tiled pyramidal TIFF (JPEG tiles of the tile size, every level a reduced-resolution image down to
    /// one tile, IFDs first and tile data smallest level first, as COG lays them out), read in place by `tiler serve`.
    case tiff

    /// The container a destination name asks for: `szi` for a name ending in `.szi`, `tiff` for `.tif` or `.tiff`,
    /// else nil.
    public static func implied(byOutput output: String) -> PyramidContainer? {
        let lowered = output.lowercased()
        if lowered.hasSuffix(".szi") { return .szi }
        if lowered.hasSuffix(".tif") || lowered.hasSuffix(".tiff") { return .tiff }
        return nil
    }

    /// The one file's extension, with its dot (nil for a folder).
    var fileExtension: String? {
        switch self {
        case .folder: nil
        case .szi: ".szi"
        case .tiff: ".tif"
        }
    }
}
