/// A snapshot of a running slice, delivered to the progress callback on the thread that called
/// ``PyramidBuilder/slice(_:into:name:progress:)``.
public struct SliceProgress: Sendable, Hashable, Codable {
    /// Source rows decoded so far.
    public var rowsRead: Int
    /// The source height.
    public var totalRows: Int
    /// Tile files written so far (all levels).
    public var tilesWritten: Int
    /// Tile files the finished pyramid will hold (all levels).
    public var totalTiles: Int
    /// Bytes of tile files written so far.
    public var bytesWritten: Int
    /// Seconds since the slice started.
    public var elapsedSeconds: Double

    /// Creates a snapshot.
    public init(rowsRead: Int, totalRows: Int, tilesWritten: Int, totalTiles: Int, bytesWritten: Int, elapsedSeconds: Double) {
        self.rowsRead = rowsRead
        self.totalRows = totalRows
        self.tilesWritten = tilesWritten
        self.totalTiles = totalTiles
        self.bytesWritten = bytesWritten
        self.elapsedSeconds = elapsedSeconds
    }

    /// The share of tiles written, `0 ... 1` (tiles lag rows, so this is the honest figure).
    public var fractionCompleted: Double {
        totalTiles == 0 ? 1 : Double(tilesWritten) / Double(totalTiles)
    }
}
