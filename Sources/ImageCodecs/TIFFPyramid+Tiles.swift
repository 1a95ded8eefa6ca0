import CTIFF

extension TIFFPyramid {
    /// Stored tile (`column`, `row`) of level `level` as a standalone JPEG file's bytes, without decoding.
    ///
    /// The level's JPEGTables merged with the tile's abbreviated stream (tables without EOI, tile without SOI), with an
    /// Adobe APP14 marker (transform 0) after SOI when the data is RGB (``Level/jpegStoresRGB``) so browsers do not
    /// read it as YCbCr. Reads the tile with one pread at its offset; no libtiff. Checks the JPEG marker structure up to
    /// the scan, not the entropy-coded data. Only for levels with ``Level/jpegPassThrough``.
    ///
    /// - Complexity: O(tile bytes). - Throws: ``TIFFPyramidError`` (`.invalidArgument` for a tile out of range or a level
    ///   that is not pass-through; `.damaged` for a bad index entry, a short read or a malformed stream).
    public func jpegTile(level: Int, column: Int, row: Int) throws(TIFFPyramidError) -> [UInt8] {
        // Without nowait the read waits for the disk: never nil.
        try jpegTile(level: level, column: column, row: row, nowait: false)!
    }

    /// ``jpegTile(level:column:row:)`` without waiting for the disk: nil when the tile's bytes are not all in the page
    /// cache (read with `preadv2` and `RWF_NOWAIT`), so an event loop can answer it at once and leave the rest to a
    /// thread that may wait.
    ///
    /// - Throws: as ``jpegTile(level:column:row:)``.
    public func jpegTileIfCached(level: Int, column: Int, row: Int) throws(TIFFPyramidError) -> [UInt8]? {
        try jpegTile(level: level, column: column, row: row, nowait: true)
    }

    private func jpegTile(level: Int, column: Int, row: Int, nowait: Bool) throws(TIFFPyramidError) -> [UInt8]? {
        var message = [CChar](repeating: 0, count: 400)
        var bound = 0
        let (l, c, r) = try coordinates(level, column, row)
        var status = tiler_tiff_pyramid_jpeg_bound(pyramid, l, c, r, &bound, &message, message.count)
        guard status == TILER_TIFF_OK else { throw failure(status, message) }
        let bytes = [UInt8](unsafeUninitializedCapacity: bound) { buffer, count in
            var length = 0
            status = tiler_tiff_pyramid_jpeg_tile_nowait(
                pyramid, l, c, r, nowait ? 1 : 0, buffer.baseAddress, bound, &length, &message, message.count)
            count = status == TILER_TIFF_OK ? length : 0
        }
        if status == TILER_TIFF_WOULD_BLOCK { return nil }
        guard status == TILER_TIFF_OK else { throw failure(status, message) }
        return bytes
    }

    /// Decodes stored tile (`column`, `row`) of level `level` into `into`: `tileHeight` rows of `tileWidth × channels`
    /// 8-bit samples, top to bottom (edge tiles as stored, padded). Any supported compression.
    ///
    /// Colour is not converted (apply ``iccProfile`` yourself); min-is-white is inverted, associated alpha undone, gray
    /// with alpha delivered as RGBA. A corrupt JPEG tile (libjpeg's "Corrupt JPEG data" warnings) throws.
    ///
    /// - Precondition: `into.count` ≥ ``Level/decodedTileBytes``. - Throws: ``TIFFPyramidError``.
    public func decodeTile(level: Int, column: Int, row: Int, into: UnsafeMutableRawBufferPointer) throws(TIFFPyramidError) {
        let (l, c, r) = try coordinates(level, column, row)
        precondition(into.count >= levels[level].decodedTileBytes, "decodeTile: the buffer holds \(into.count) bytes, a tile needs more")
        var message = [CChar](repeating: 0, count: 400)
        let status = tiler_tiff_pyramid_decode_tile(
            pyramid, l, c, r, into.baseAddress?.assumingMemoryBound(to: UInt8.self), into.count, &message, message.count)
        guard status == TILER_TIFF_OK else { throw failure(status, message) }
    }

    /// Decodes stored tile (`column`, `row`) of level `level` into a new array (see ``decodeTile(level:column:row:into:)``).
    public func decodeTile(level: Int, column: Int, row: Int) throws(TIFFPyramidError) -> [UInt8] {
        guard levels.indices.contains(level) else { throw outOfRange(level, column, row) }
        let size = levels[level].decodedTileBytes
        var pixels = [UInt8](repeating: 0, count: size)
        // withUnsafeMutableBytes rethrows untyped errors: carry the typed one out.
        var failure: TIFFPyramidError?
        pixels.withUnsafeMutableBytes { buffer in
            do throws(TIFFPyramidError) {
                try decodeTile(level: level, column: column, row: row, into: buffer)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return pixels
    }

    /// The coordinates as C ints, after checking they name a stored tile.
    func coordinates(_ level: Int, _ column: Int, _ row: Int) throws(TIFFPyramidError) -> (Int32, Int32, Int32) {
        guard levels.indices.contains(level), (0..<levels[level].columns).contains(column), (0..<levels[level].rows).contains(row)
        else { throw outOfRange(level, column, row) }
        return (Int32(level), Int32(column), Int32(row))
    }

    private func outOfRange(_ level: Int, _ column: Int, _ row: Int) -> TIFFPyramidError {
        TIFFPyramidError(kind: .invalidArgument, path: path, reason: "no tile (\(column), \(row)) in level \(level)")
    }

    func failure(_ status: Int32, _ message: [CChar]) -> TIFFPyramidError {
        TIFFPyramidError(kind: TIFFPyramidError.Kind(status: status), path: path, reason: Self.string(message))
    }
}
