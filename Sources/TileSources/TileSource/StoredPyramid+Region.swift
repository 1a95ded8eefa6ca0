import ImageCodecs

extension StoredPyramid {
    /// The stored pixels of `x0..<x1` × `y0..<y1` of level `level`, decoded from the stored tiles that hold them, each
    /// decoded once.
    package func region(level: Int, x0: Int, y0: Int, x1: Int, y1: Int) throws -> PixelBuffer {
        try region(level: level, x0: x0, y0: y0, x1: x1, y1: y1) { column, row, tile in
            try decodeTile(level: level, column: column, row: row, into: tile)
        }
    }

    /// The stored tiles of level `level` under `x0..<x1` × `y0..<y1`, row by row.
    package func storedTiles(level: Int, x0: Int, y0: Int, x1: Int, y1: Int) -> [(column: Int, row: Int)] {
        let stored = storedLevels[level]
        return ((y0 / stored.tileHeight)...((y1 - 1) / stored.tileHeight)).flatMap { row in
            ((x0 / stored.tileWidth)...((x1 - 1) / stored.tileWidth)).map { (column: $0, row: row) }
        }
    }

    /// The stored pixels of `x0..<x1` × `y0..<y1` of level `level`, from the stored tiles that hold them
    /// (``storedTiles(level:x0:y0:x1:y1:)``), each decoded once by `decode` (column, row, and a buffer of one decoded
    /// stored tile).
    package func region(
        level: Int, x0: Int, y0: Int, x1: Int, y1: Int, decode: (_ column: Int, _ row: Int, UnsafeMutableRawBufferPointer) throws -> Void
    ) throws -> PixelBuffer {
        let stored = storedLevels[level]
        let channels = stored.channels
        let width = x1 - x0
        let height = y1 - y0
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        var tile = [UInt8](repeating: 0, count: stored.tileWidth * stored.tileHeight * channels)
        for (column, row) in storedTiles(level: level, x0: x0, y0: y0, x1: x1, y1: y1) {
            try tile.withUnsafeMutableBytes { try decode(column, row, $0) }
            let tx = column * stored.tileWidth
            let ty = row * stored.tileHeight
            let cx0 = max(x0, tx)
            let cx1 = min(x1, tx + stored.tileWidth)
            let run = (cx1 - cx0) * channels
            for y in max(y0, ty)..<min(y1, ty + stored.tileHeight) {
                let from = ((y - ty) * stored.tileWidth + (cx0 - tx)) * channels
                let to = ((y - y0) * width + (cx0 - x0)) * channels
                bytes.replaceSubrange(to..<(to + run), with: tile[from..<(from + run)])
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: PixelFormat(rawValue: channels) ?? .rgb, bytes: bytes)
    }
}
