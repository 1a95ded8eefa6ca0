/// One tile of a visible-tiles answer: its address in the pyramid and the image pixels it stands for.
public struct VisibleTile: Sendable, Hashable {
    /// The pyramid level (0 is 1×1).
    public let level: Int
    /// The tile column (`col` in JSON and tile file names).
    public let column: Int
    /// The tile row.
    public let row: Int
    /// The full-resolution image pixels the tile stands for: ``Pyramid/tileFrame(level:column:row:)``.
    public let frame: PixelRect

    /// Creates a tile description.
    public init(level: Int, column: Int, row: Int, frame: PixelRect) {
        self.level = level
        self.column = column
        self.row = row
        self.frame = frame
    }
}
