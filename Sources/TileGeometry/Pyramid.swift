/// The geometry of a Deep Zoom image pyramid: levels, level sizes, tile grids and tile frames.
///
/// Level 0 is 1×1; level `maxLevel = ceil(log2(max(width, height)))` is the full image. Level `L` is the
/// image shrunk by `2^(maxLevel − L)`, rounding up. Every query is O(1) and allocation-free.
public struct Pyramid: Sendable, Hashable {
    /// The full-resolution image width, in pixels (≥ 1).
    public let width: Int
    /// The full-resolution image height, in pixels (≥ 1).
    public let height: Int
    /// The tile edge, in level pixels (≥ 1).
    public let tileSize: Int
    /// The DZI overlap: extra pixels each tile image carries on every side that has a neighbour (≥ 0).
    public let overlap: Int
    /// The index of the full-resolution level: `ceil(log2(max(width, height)))`.
    public let maxLevel: Int

    /// Creates the pyramid of a `width` × `height` image.
    ///
    /// - Precondition: `width ≥ 1`, `height ≥ 1`, `tileSize ≥ 1`, `overlap ≥ 0`. Callers holding user input
    ///   validate it first (see ``Pyramid/validated(width:height:tileSize:overlap:)``).
    public init(width: Int, height: Int, tileSize: Int = 256, overlap: Int = 0) {
        precondition(width >= 1 && height >= 1, "image size must be at least 1×1")
        precondition(tileSize >= 1 && overlap >= 0, "tile size must be ≥ 1 and overlap ≥ 0")
        self.width = width
        self.height = height
        self.tileSize = tileSize
        self.overlap = overlap
        self.maxLevel = Pyramid.ceilLog2(max(width, height))
    }

    /// The number of levels, `maxLevel + 1`.
    public var levelCount: Int { maxLevel + 1 }

    /// The size of level `level` in pixels: `ceil(width / 2^k) × ceil(height / 2^k)` with `k = maxLevel − level`.
    public func levelSize(_ level: Int) -> (width: Int, height: Int) {
        let k = maxLevel - level
        return (Pyramid.ceilShift(width, k), Pyramid.ceilShift(height, k))
    }

    /// The tile grid of level `level`: `ceil(levelWidth / tileSize)` columns × `ceil(levelHeight / tileSize)` rows.
    public func grid(_ level: Int) -> (columns: Int, rows: Int) {
        let size = levelSize(level)
        return ((size.width + tileSize - 1) / tileSize, (size.height + tileSize - 1) / tileSize)
    }

    /// Every tile of the pyramid, level 0 first, each level row by row (columns within a row).
    ///
    /// - Complexity: O(1) to make; iterating is O(tiles), lazily.
    public var tiles: some Sequence<(level: Int, column: Int, row: Int)> {
        (0...maxLevel).lazy.flatMap { level in
            let grid = grid(level)
            return (0..<grid.rows).lazy.flatMap { row in (0..<grid.columns).lazy.map { column in (level: level, column: column, row: row) } }
        }
    }

    /// The level pixels tile (`column`, `row`) covers, without overlap.
    public func tileRect(level: Int, column: Int, row: Int) -> PixelRect {
        let size = levelSize(level)
        let x = column * tileSize
        let y = row * tileSize
        return PixelRect(x: x, y: y, width: min(x + tileSize, size.width) - x, height: min(y + tileSize, size.height) - y)
    }

    /// The level pixels the tile's image file holds: ``tileRect(level:column:row:)`` extended by `overlap` on every
    /// side that has a neighbour, clipped to the level.
    public func tileImageRect(level: Int, column: Int, row: Int) -> PixelRect {
        let size = levelSize(level)
        let core = tileRect(level: level, column: column, row: row)
        let x0 = max(core.x - overlap, 0)
        let y0 = max(core.y - overlap, 0)
        let x1 = min(core.maxX + overlap, size.width)
        let y1 = min(core.maxY + overlap, size.height)
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// The full-resolution image pixels tile (`column`, `row`) of `level` stands for (its frame).
    public func tileFrame(level: Int, column: Int, row: Int) -> PixelRect {
        let span = tileSize << (maxLevel - level)
        let x = column * span
        let y = row * span
        return PixelRect(x: x, y: y, width: min(x + span, width) - x, height: min(y + span, height) - y)
    }

    /// `ceil(log2(n))` for `n ≥ 1`.
    static func ceilLog2(_ n: Int) -> Int {
        n <= 1 ? 0 : Int.bitWidth - (n - 1).leadingZeroBitCount
    }

    /// `ceil(n / 2^k)` for `n ≥ 0`, `k ≥ 0`.
    static func ceilShift(_ n: Int, _ k: Int) -> Int {
        k >= Int.bitWidth - 1 ? (n > 0 ? 1 : 0) : (n + (1 << k) - 1) >> k
    }
}
