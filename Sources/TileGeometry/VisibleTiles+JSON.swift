import JSONText

extension VisibleTiles {
    /// The answer as compact JSON (no spaces), keys in this order:
    ///
    /// `{"width":W,"height":H,"tileSize":T,"overlap":O,"maxLevel":M,"level":L,"levelScale":S,"levelWidth":LW,
    /// "levelHeight":LH,"visibleRect":{"x":…,"y":…,"width":…,"height":…}|null,"tiles":[{"level":L,"col":C,
    /// "row":R,"x":…,"y":…,"width":…,"height":…,"url":"…"},…]}`
    ///
    /// Integers print without a fraction; other numbers (`levelScale`, `visibleRect`) print as integers when
    /// integral, else in the shortest form that reads back to the same `Double`. The `visibleRect` width and height
    /// are `maxX − minX` and `maxY − minY`.
    ///
    /// - Parameter tileURL: Called once per tile, in order; when given, each tile object ends with `"url"` holding
    ///   its result, escaped. For the Deep Zoom file layout, ``json(tileURLPrefix:tileURLSuffix:)`` is faster.
    /// - Complexity: O(n) for n tiles.
    public func json(tileURL: ((VisibleTile) -> String)? = nil) -> String {
        guard let tileURL else { return jsonWriter(urlBytesPerTile: 0, url: nil).text }
        return jsonWriter(urlBytesPerTile: 64) { tile, out in out.string(tileURL(tile)) }.text
    }

    /// The answer as ``json(tileURL:)`` writes it, each tile's `"url"` being
    /// `tileURLPrefix + "\(level)/\(column)_\(row)" + tileURLSuffix` — the Deep Zoom layout
    /// (`/images/NAME_files/` + `13/3_2` + `.jpg`) — written without building a string per tile.
    ///
    /// - Complexity: O(n) for n tiles.
    public func json(tileURLPrefix: String, tileURLSuffix: String) -> String {
        jsonWriter(tileURLPrefix: tileURLPrefix, tileURLSuffix: tileURLSuffix).text
    }

    /// The bytes of ``json(tileURLPrefix:tileURLSuffix:)``, in the writer that wrote them: for a caller that copies
    /// them straight into its output buffer (`withBytes`), without the `String` (a copy and a UTF-8 check of the
    /// whole answer, 5–8 KB for a 1920×1080 screen) in between.
    ///
    /// - Complexity: O(n) for n tiles.
    public func jsonWriter(tileURLPrefix: String, tileURLSuffix: String) -> JSONWriter {
        // Escape the constant parts once, then copy them per tile.
        var parts = JSONWriter(capacity: 2 * (tileURLPrefix.utf8.count + tileURLSuffix.utf8.count) + 8)
        parts.raw("\"")
        parts.string(contentsOf: tileURLPrefix)
        let prefixEnd = parts.byteCount
        parts.string(contentsOf: tileURLSuffix)
        parts.raw("\"")
        return parts.withBytes { bytes in
            let prefix = UnsafeBufferPointer(rebasing: bytes[..<prefixEnd])
            let suffix = UnsafeBufferPointer(rebasing: bytes[prefixEnd...])
            return jsonWriter(urlBytesPerTile: bytes.count + 24) { tile, out in
                out.raw(prefix)
                out.integer(tile.level)
                out.raw("/")
                out.integer(tile.column)
                out.raw("_")
                out.integer(tile.row)
                out.raw(suffix)
            }
        }
    }

    /// Writes the answer; `url`, when given, writes each tile's URL value (a JSON string).
    private func jsonWriter(urlBytesPerTile: Int, url: ((VisibleTile, inout JSONWriter) -> Void)?) -> JSONWriter {
        var out = JSONWriter(capacity: 320 + tiles.count * (90 + urlBytesPerTile))
        writeHeader(to: &out)
        out.raw(",\"visibleRect\":")
        if let rect = visibleRect {
            out.raw("{\"x\":")
            out.number(rect.x)
            out.raw(",\"y\":")
            out.number(rect.y)
            out.raw(",\"width\":")
            out.number(rect.width)
            out.raw(",\"height\":")
            out.number(rect.height)
            out.raw("}")
        } else {
            out.raw("null")
        }
        out.raw(",\"tiles\":[")
        for index in tiles.indices {
            if index > 0 { out.raw(",") }
            Self.write(tiles[index], to: &out)
            if let url {
                out.raw(",\"url\":")
                url(tiles[index], &out)
            }
            out.raw("}")
        }
        out.raw("]}")
        return out
    }

    /// Writes `{"width":…` up to and including `"levelHeight":…`.
    private func writeHeader(to out: inout JSONWriter) {
        let size = levelSize
        out.raw("{\"width\":")
        out.integer(pyramid.width)
        out.raw(",\"height\":")
        out.integer(pyramid.height)
        out.raw(",\"tileSize\":")
        out.integer(pyramid.tileSize)
        out.raw(",\"overlap\":")
        out.integer(pyramid.overlap)
        out.raw(",\"maxLevel\":")
        out.integer(pyramid.maxLevel)
        out.raw(",\"level\":")
        out.integer(level)
        out.raw(",\"levelScale\":")
        out.number(levelScale)
        out.raw(",\"levelWidth\":")
        out.integer(size.width)
        out.raw(",\"levelHeight\":")
        out.integer(size.height)
    }

    /// Writes a tile object without its closing brace.
    private static func write(_ tile: VisibleTile, to out: inout JSONWriter) {
        out.raw("{\"level\":")
        out.integer(tile.level)
        out.raw(",\"col\":")
        out.integer(tile.column)
        out.raw(",\"row\":")
        out.integer(tile.row)
        out.raw(",\"x\":")
        out.integer(tile.frame.x)
        out.raw(",\"y\":")
        out.integer(tile.frame.y)
        out.raw(",\"width\":")
        out.integer(tile.frame.width)
        out.raw(",\"height\":")
        out.integer(tile.frame.height)
    }
}
