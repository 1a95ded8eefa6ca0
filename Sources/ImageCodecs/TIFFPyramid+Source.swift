import CTIFF

extension TIFFPyramid {
    /// Opens the TIFF whose bytes `source` gives (an object in a store) and finds its levels, as ``init(path:)`` does a
    /// file's: the same layouts, checks and errors. Its header and directories are read through `source`, which is kept
    /// (the decoding handles read their level's directory through it again); no tile data is read. Its tiles are read
    /// by the caller, where ``storedTileRange(level:column:row:)`` says they lie.
    ///
    /// A read `source` cannot serve (bytes not at hand) fails the open: the caller that noted it fetches those bytes and
    /// opens again.
    ///
    /// - Parameter label: The TIFF's name in errors (``path``), e.g. `s3://bucket/key.tif`.
    /// - Throws: ``TIFFPyramidError`` as ``init(path:)``; `.unreadable` when even its first bytes are not at hand.
    public convenience init(source: any TIFFByteSource, label: String) throws(TIFFPyramidError) {
        var head = [UInt8](repeating: 0, count: min(4, source.size))
        let count = head.withUnsafeMutableBytes { source.read(at: 0, into: $0) }
        guard let count else { throw TIFFPyramidError(kind: .unreadable, path: label, reason: "its first bytes are not at hand") }
        guard Self.hasTIFFMagic(head.prefix(count)) else { throw TIFFPyramidError(kind: .notPyramid, path: label, reason: "not a TIFF file") }
        guard source.size >= 8 else {
            throw TIFFPyramidError(kind: .damaged, path: label, reason: "truncated TIFF header (\(source.size) bytes)")
        }
        let box = TIFFSourceBox(source)
        var cSource = box.cSource
        var opened: OpaquePointer?
        var message = [CChar](repeating: 0, count: 512)
        let status = tiler_tiff_pyramid_open_source(&cSource, &opened, &message, message.count)
        guard status == TILER_TIFF_OK, let opened else {
            throw TIFFPyramidError(kind: TIFFPyramidError.Kind(status: status), path: label, reason: Self.string(message))
        }
        self.init(opened: opened, path: label, identity: FileIdentity(sourceOfSize: source.size), source: box)
    }

    /// Where stored tile (`column`, `row`) of level `level`'s bytes lie in the TIFF, in bytes: checked as every read of
    /// them is (a TileByteCounts entry that is not 0, not absurd for the tile's size, within the TIFF). No read.
    ///
    /// - Complexity: O(1). - Throws: ``TIFFPyramidError``: `.invalidArgument` for a tile out of range, `.damaged` for a
    ///   bad index entry.
    public func storedTileRange(level: Int, column: Int, row: Int) throws(TIFFPyramidError) -> Range<Int> {
        let (l, c, r) = try coordinates(level, column, row)
        var message = [CChar](repeating: 0, count: 400)
        var offset: UInt64 = 0
        var length: UInt64 = 0
        let status = tiler_tiff_pyramid_tile_extent(pyramid, l, c, r, &offset, &length, &message, message.count)
        guard status == TILER_TIFF_OK else { throw failure(status, message) }
        return Int(offset)..<Int(offset + length)
    }

    /// Stored tile (`column`, `row`) of level `level` as ``jpegTile(level:column:row:)`` gives it, from its stored bytes
    /// read by the caller (all of ``storedTileRange(level:column:row:)``): checked as that checks them, then the level's
    /// prefix and the bytes after their SOI — the same bytes as from a file. Only for levels with
    /// ``Level/jpegPassThrough``.
    ///
    /// - Complexity: O(tile bytes). - Throws: ``TIFFPyramidError``: `.invalidArgument` (out of range, not pass-through,
    ///   not the tile's byte count), `.damaged` (a malformed stream).
    public func jpegTile(level: Int, column: Int, row: Int, stored: [UInt8]) throws(TIFFPyramidError) -> [UInt8] {
        let (l, c, r) = try coordinates(level, column, row)
        var message = [CChar](repeating: 0, count: 400)
        let status = tiler_tiff_pyramid_jpeg_check(pyramid, l, c, r, stored, stored.count, &message, message.count)
        guard status == TILER_TIFF_OK else { throw failure(status, message) }
        return jpegPrefixes[level] + stored.dropFirst(2)
    }

    /// Decodes stored tile (`column`, `row`) of level `level` from its stored bytes read by the caller (all of
    /// ``storedTileRange(level:column:row:)``) into `into`, as ``decodeTile(level:column:row:into:)`` does from the file.
    ///
    /// - Precondition: `into.count` ≥ ``Level/decodedTileBytes``. - Throws: ``TIFFPyramidError``.
    public func decodeTile(level: Int, column: Int, row: Int, stored: [UInt8], into: UnsafeMutableRawBufferPointer) throws(TIFFPyramidError) {
        let (l, c, r) = try coordinates(level, column, row)
        precondition(into.count >= levels[level].decodedTileBytes, "decodeTile: the buffer holds \(into.count) bytes, a tile needs more")
        var message = [CChar](repeating: 0, count: 400)
        let status = tiler_tiff_pyramid_decode_tile_from(
            pyramid, l, c, r, stored, stored.count, into.baseAddress?.assumingMemoryBound(to: UInt8.self), into.count, &message, message.count)
        guard status == TILER_TIFF_OK else { throw failure(status, message) }
    }
}
