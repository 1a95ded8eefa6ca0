/// How a slice stores its pyramid.
public enum PyramidContainer: String, Sendable, CaseIterable {
    /// `NAME.dzi` beside `NAME_files/LEVEL/COL_ROW.EXT`: one file per tile.
    case folder
    /// `NAME.szi`: one stored ZIP holding `NAME/NAME.dzi` and `NAME/NAME_files/LEVEL/COL_ROW.EXT`, the same bytes as the
    /// folder layout's (libvips' `dzsave --container zip` format).
    case szi

    /// The container a destination name asks for: `szi` for a name ending in `.szi`, else nil.
    public static func implied(byOutput output: String) -> PyramidContainer? {
        output.lowercased().hasSuffix(".szi") ? .szi : nil
    }
}
