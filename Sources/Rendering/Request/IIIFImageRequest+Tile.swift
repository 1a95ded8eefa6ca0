import TileGeometry
import TileSources

extension IIIFImageRequest {
    /// The stored tile this request is exactly, if any: the region is one tile's frame at some level (aligned to
    /// that level's tile grid, edge tiles included), the size is that tile's size in level pixels, and the request
    /// is plain (rotation 0, no mirroring, `default` quality) in the pyramid's own tile format. Such a request is
    /// served the stored tile's bytes, like a tile fetch.
    ///
    /// Pyramids with overlap store larger tiles than their frames, so none of their tiles matches.
    ///
    /// - Complexity: O(levels).
    package func storedTile(in pyramid: Pyramid, tileFormat: IIIFFormat?) -> TileAddress? {
        guard isPlain, format == tileFormat, pyramid.overlap == 0 else { return nil }
        for level in (0...pyramid.maxLevel).reversed() {
            let shift = pyramid.maxLevel - level
            let span = pyramid.tileSize << shift
            guard region.x % span == 0, region.y % span == 0 else { continue }
            let column = region.x / span
            let row = region.y / span
            let grid = pyramid.grid(level)
            guard column < grid.columns, row < grid.rows,
                pyramid.tileFrame(level: level, column: column, row: row) == region
            else { continue }
            let tile = pyramid.tileRect(level: level, column: column, row: row)
            if tile.width == width && tile.height == height {
                return TileAddress(level: level, column: column, row: row)
            }
        }
        return nil
    }
}
