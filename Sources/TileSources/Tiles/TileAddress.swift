/// A tile's place in a pyramid, as numbers from a URL (not yet checked against the pyramid).
package struct TileAddress: Hashable, Sendable {
    /// The level (0 is 1×1).
    package var level: Int
    /// The column.
    package var column: Int
    /// The row.
    package var row: Int

    /// The tile at `column`, `row` of `level`.
    package init(level: Int, column: Int, row: Int) {
        self.level = level
        self.column = column
        self.row = row
    }
}
