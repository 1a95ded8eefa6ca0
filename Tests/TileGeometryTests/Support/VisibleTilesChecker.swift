import Foundation
import Testing
import TileGeometry

/// Checks one visible-tiles answer against the spec, with independent arithmetic (see ``Reference``).
struct VisibleTilesChecker {
    let pyramid: Pyramid
    let viewport: Viewport
    let answer: VisibleTiles

    /// The level follows the libm formula; it never upsamples, and the next coarser level would (unless clamped).
    func checkLevel() {
        let z = viewport.zoomScale * viewport.contentScale
        #expect(answer.level == Reference.level(maxLevel: pyramid.maxLevel, zoomScale: viewport.zoomScale, contentScale: viewport.contentScale))
        #expect(answer.levelScale == pow(2, Double(answer.level - pyramid.maxLevel)))
        if answer.level < pyramid.maxLevel {
            #expect(answer.levelScale >= z * (1 - 1e-8), "level \(answer.level) upsamples at z = \(z)")
        }
        if answer.level > 0 {
            #expect(answer.levelScale / 2 < z * (1 + 1e-8), "level \(answer.level - 1) would not upsample at z = \(z)")
        }
    }

    /// The visible rect is the viewport in image pixels clipped to the image, or nil when that has no area.
    func checkVisibleRect() {
        let z = viewport.zoomScale
        let left = Swift.max(viewport.x / z, 0)
        let right = Swift.min((viewport.x + viewport.width) / z, Double(pyramid.width))
        let top = Swift.max(viewport.y / z, 0)
        let bottom = Swift.min((viewport.y + viewport.height) / z, Double(pyramid.height))
        guard right > left && bottom > top else {
            #expect(answer.visibleRect == nil && answer.tiles.isEmpty)
            return
        }
        #expect(answer.visibleRect == ImageRect(minX: left, minY: top, maxX: right, maxY: bottom))
    }

    /// Columns (or rows) whose frames meet `[low, high]`, scanning a window around the estimate; frames are
    /// consecutive, so every index outside the window is at least a whole span away from the interval.
    func meetingIndices(low: Double, high: Double, count: Int, extent: Int) -> ClosedRange<Int>? {
        let k = pyramid.maxLevel - answer.level
        let span = Double(pyramid.tileSize) * pow(2, Double(k))
        let window = Swift.max(0, Int(low / span) - 2)...Swift.min(count - 1, Int(high / span) + 2)
        let meeting = window.filter { Reference.meets(Reference.frameSpan($0, tileSize: pyramid.tileSize, scaleShift: k, extent: extent), low, high) }
        guard let first = meeting.first, let last = meeting.last else { return nil }
        #expect(meeting.count == last - first + 1, "meeting tiles are contiguous")
        return first...last
    }

    /// The returned tiles are exactly the meeting ones, widened by `prefetch` and clipped; none is repeated.
    func checkTileSet() {
        guard let rect = answer.visibleRect else { return }
        let grid = pyramid.grid(answer.level)
        guard let columns = meetingIndices(low: rect.minX, high: rect.maxX, count: grid.columns, extent: pyramid.width),
            let rows = meetingIndices(low: rect.minY, high: rect.maxY, count: grid.rows, extent: pyramid.height)
        else {
            Issue.record("a visible rect with area meets no tile")
            return
        }
        let wideColumns = Self.widen(columns, by: viewport.prefetch, count: grid.columns)
        let wideRows = Self.widen(rows, by: viewport.prefetch, count: grid.rows)
        let expected = Set(wideRows.flatMap { row in wideColumns.map { TileKey(column: $0, row: row) } })
        let actual = answer.tiles.map { TileKey(column: $0.column, row: $0.row) }
        #expect(actual.count == Set(actual).count, "no tile twice")
        #expect(Set(actual) == expected)
        for tile in answer.tiles {
            #expect(tile.level == answer.level)
            #expect(tile.frame == pyramid.tileFrame(level: answer.level, column: tile.column, row: tile.row))
        }
    }

    /// `range` grown by `margin` each side within `0 ..< count`, saturating (prefetch may be `Int.max`).
    static func widen(_ range: ClosedRange<Int>, by margin: Int, count: Int) -> ClosedRange<Int> {
        let low = margin >= range.lowerBound ? 0 : range.lowerBound - margin
        let high = margin >= count - 1 - range.upperBound ? count - 1 : range.upperBound + margin
        return low...high
    }

    /// Without prefetch: every frame meets the visible rect with positive area, and their union covers it.
    func checkCoverage() {
        guard let rect = answer.visibleRect, viewport.prefetch == 0 else { return }
        for tile in answer.tiles {
            let f = tile.frame
            let overlapWidth = Swift.min(Double(f.maxX), rect.maxX) - Swift.max(Double(f.x), rect.minX)
            let overlapHeight = Swift.min(Double(f.maxY), rect.maxY) - Swift.max(Double(f.y), rect.minY)
            #expect(overlapWidth > 0 && overlapHeight > 0, "tile \(tile.column),\(tile.row) misses \(rect)")
        }
        // The tiles form a full block of columns × rows (checked in checkTileSet), so covering means the block's
        // outer frames reach the rect's edges.
        #expect(Double(answer.tiles.map(\.frame.x).min() ?? .max) <= rect.minX)
        #expect(Double(answer.tiles.map(\.frame.maxX).max() ?? .min) >= rect.maxX)
        #expect(Double(answer.tiles.map(\.frame.y).min() ?? .max) <= rect.minY)
        #expect(Double(answer.tiles.map(\.frame.maxY).max() ?? .min) >= rect.maxY)
        // At most ⌈w/T⌉+1 columns and ⌈h/T⌉+1 rows, w × h being the viewport in level pixels.
        let toLevel = answer.levelScale / viewport.zoomScale
        let bound =
            (Reference.tileCount(Int((viewport.width * toLevel).rounded(.up)), tileSize: pyramid.tileSize) + 1)
            * (Reference.tileCount(Int((viewport.height * toLevel).rounded(.up)), tileSize: pyramid.tileSize) + 1)
        #expect(answer.tiles.count <= bound)
    }

    /// Ascending squared distance between the frame's centre and the rect's centre; ties by row, then column.
    func checkOrder() {
        guard let rect = answer.visibleRect else { return }
        let centre = ((rect.minX + rect.maxX) / 2, (rect.minY + rect.maxY) / 2)
        func key(_ tile: VisibleTile) -> (Double, Int, Int) {
            let dx = (Double(tile.frame.x) + Double(tile.frame.width) * 0.5) - centre.0
            let dy = (Double(tile.frame.y) + Double(tile.frame.height) * 0.5) - centre.1
            return (dx * dx + dy * dy, tile.row, tile.column)
        }
        for (before, after) in zip(answer.tiles, answer.tiles.dropFirst()) {
            #expect(key(before) < key(after), "order \(key(before)) then \(key(after))")
        }
    }

    func checkAll() {
        checkLevel()
        checkVisibleRect()
        checkTileSet()
        checkCoverage()
        checkOrder()
    }
}

/// A tile's grid address, for set comparisons.
struct TileKey: Hashable {
    let column: Int
    let row: Int
}
