extension Pyramid {
    /// The most tiles ``visibleTiles(in:tileLimit:)`` returns unless told otherwise.
    ///
    /// A 7680×4320 viewport needs at most about 2,200 tiles of 256 px; the limit only stops absurd requests (a huge
    /// `prefetch`, 1-px tiles) from building millions of tiles.
    public static let defaultTileLimit = 100_000

    /// `2^(1e-9)` rounded to `Double`: the significand above which `log2` exceeds the level tolerance of 1e-9.
    static let levelTolerance = 1.000_000_000_693_147

    /// The level that shows the image at `zoomScale` points per image pixel on a screen of `contentScale` device
    /// pixels per point without upsampling: the coarsest level with at least one level pixel per device pixel.
    ///
    /// Defined as `L = ceil(maxLevel + log2(zoomScale · contentScale) − 1e-9)` clamped to `0 … maxLevel`, where the
    /// 1e-9 keeps exact powers of two (and their rounding noise) on the coarser level. Computed without `log2`:
    /// with `z = zoomScale · contentScale = m · 2^e` (`1 ≤ m < 2`), `L = maxLevel + e + (m > 2^(1e-9) ? 1 : 0)`;
    /// `z` rounding to 0 gives level 0, to infinity `maxLevel`.
    ///
    /// - Precondition: `zoomScale > 0`, `contentScale > 0`.
    /// - Complexity: O(1).
    public func level(zoomScale: Double, contentScale: Double = 1) -> Int {
        precondition(zoomScale > 0 && contentScale > 0, "zoomScale and contentScale must be > 0")
        let z = zoomScale * contentScale
        if z == 0 { return 0 }
        if z == .infinity { return maxLevel }
        let exponent = Int(z.exponent)
        let bump = z.significand > Self.levelTolerance ? 1 : 0
        return min(max(maxLevel + exponent + bump, 0), maxLevel)
    }

    /// The image pixels `viewport` shows: `[x / zoomScale, (x + width) / zoomScale] × [y / zoomScale,
    /// (y + height) / zoomScale]` intersected with `[0, width] × [0, height]` of the image, or `nil` if that has
    /// no area. Bounds are computed exactly by those expressions in `Double` (overflow saturates to infinity and is
    /// then clipped).
    ///
    /// - Complexity: O(1).
    public func visibleRect(of viewport: Viewport) -> ImageRect? {
        let rect = ImageRect(
            minX: max(viewport.x / viewport.zoomScale, 0),
            minY: max(viewport.y / viewport.zoomScale, 0),
            maxX: min((viewport.x + viewport.width) / viewport.zoomScale, Double(width)),
            maxY: min((viewport.y + viewport.height) / viewport.zoomScale, Double(height)))
        return rect.isEmpty ? nil : rect
    }

    /// The tiles a client showing `viewport` needs, nearest the centre first.
    ///
    /// 1. The level is ``level(zoomScale:contentScale:)``; the visible rect ``visibleRect(of:)``.
    /// 2. The tiles are every tile of that level whose ``tileFrame(level:column:row:)`` meets the visible rect with
    ///    positive area; with `prefetch = p` the column and row ranges are each widened by `p` on both sides, clipped
    ///    to the grid. No visible rect, no tiles.
    /// 3. Order: ascending `dx·dx + dy·dy` in `Double`, where `dx = (frame.x + frame.width / 2) − visibleRect.midX`
    ///    and likewise `dy`; ties by row, then column.
    ///
    /// - Parameter tileLimit: The most tiles to return (≥ 0).
    /// - Throws: ``GeometryError`` when more than `tileLimit` tiles would be returned; its parameter is `prefetch`
    ///   if the visible tiles alone fit, else `viewport`.
    /// - Precondition: the pyramid is within the limits of ``validated(width:height:tileSize:overlap:)``.
    /// - Complexity: O(n log n) for n returned tiles; two allocations (the answer and, beyond the stack, a sort key
    ///   buffer).
    public func visibleTiles(in viewport: Viewport, tileLimit: Int = Pyramid.defaultTileLimit) throws(GeometryError) -> VisibleTiles {
        let level = level(zoomScale: viewport.zoomScale, contentScale: viewport.contentScale)
        guard let rect = visibleRect(of: viewport) else {
            return VisibleTiles(pyramid: self, level: level, visibleRect: nil, tiles: [])
        }
        let grid = grid(level)
        let span = tileSize << (maxLevel - level)
        let seenColumns = Self.indices(meeting: rect.minX, rect.maxX, span: span, count: grid.columns)
        let seenRows = Self.indices(meeting: rect.minY, rect.maxY, span: span, count: grid.rows)
        let columns = Self.widen(seenColumns, by: viewport.prefetch, count: grid.columns)
        let rows = Self.widen(seenRows, by: viewport.prefetch, count: grid.rows)
        let count = columns.count * rows.count
        guard count <= tileLimit else {
            let parameter = seenColumns.count * seenRows.count <= tileLimit ? "prefetch" : "viewport"
            throw GeometryError(
                parameter: parameter,
                message: "\(parameter) asks for \(count) tiles of level \(level), more than the limit of \(tileLimit)")
        }
        let tiles = orderedTiles(level: level, columns: columns, rows: rows, centreX: rect.midX, centreY: rect.midY)
        return VisibleTiles(pyramid: self, level: level, visibleRect: rect, tiles: tiles)
    }

    /// The indices `i` in `0 ..< count` whose span `[i·span, (i+1)·span)` meets `(low, high)`; `0 ≤ low < high`.
    ///
    /// Estimated by division, then corrected by exact comparisons (products are below 2⁵³), so rounding in
    /// `low / span` can never drop or add a tile.
    static func indices(meeting low: Double, _ high: Double, span: Int, count: Int) -> ClosedRange<Int> {
        // Truncation is floor here (both bounds are ≥ 0); `rounded()` would need libm, which `tiler` does not link.
        let scale = Double(span)
        var first = Int(min(low / scale, Double(count - 1)))
        while first > 0 && Double(first * span) > low { first -= 1 }
        while first < count - 1 && Double((first + 1) * span) <= low { first += 1 }
        var last = max(Int(min(high / scale, Double(count - 1))), first)
        while last > first && Double(last * span) >= high { last -= 1 }
        while last < count - 1 && Double((last + 1) * span) < high { last += 1 }
        return first...last
    }

    /// `range` widened by `margin` on both sides, clipped to `0 ..< count`, without overflow for any margin.
    static func widen(_ range: ClosedRange<Int>, by margin: Int, count: Int) -> ClosedRange<Int> {
        (range.lowerBound - min(margin, range.lowerBound))...(range.upperBound + min(margin, count - 1 - range.upperBound))
    }
}
