/// Where the workers put encoded tiles: files in level folders (``TileWriter``) or entries of one archive
/// (``ArchiveTileWriter``). Shared by all worker threads.
protocol TileSink: Sendable {
    /// Stores tile (`level`, `column`, `row`), which must not be stored yet.
    func writeTile(_ bytes: [UInt8], level: Int, column: Int, row: Int) throws(SliceError)
}

extension TileWriter: TileSink {}
