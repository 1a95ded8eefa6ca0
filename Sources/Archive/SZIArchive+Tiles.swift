extension SZIArchive {
    /// Where tile (`level`, `column`, `row`)'s bytes lie in the file, or nil when the archive lacks it (or the address
    /// is outside the pyramid). - Complexity: O(1); O(log n) in the tiles for a sparse index (a grid far larger than
    /// the archive's entries).
    ///
    /// With ``ZIPDirectory/LocalHeaders/derive`` (an archive opened remotely) the offset is derived, not yet checked:
    /// read the tile with ``readTile(level:column:row:from:)``, which checks it.
    public func tile(level: Int, column: Int, row: Int) -> (offset: UInt64, size: Int)? {
        guard let position = position(level: level, column: column, row: row) else { return nil }
        return (offsets[position], Int(sizes[position]))
    }

    /// Where tile (`level`, `column`, `row`)'s local header starts, as well as its bytes: one read of
    /// `headerOffset ..< offset + size` gives the header, name, extra field and bytes, for
    /// ``readTile(level:column:row:from:)`` to check and trim. Nil when the archive lacks the tile.
    ///
    /// - Complexity: as ``tile(level:column:row:)``.
    public func tileRecord(level: Int, column: Int, row: Int) -> (headerOffset: UInt64, offset: UInt64, size: Int)? {
        guard let position = position(level: level, column: column, row: row) else { return nil }
        let headerLength = ZIPLayout.localHeaderSize + tileName(level: level, column: column, row: row).count + Int(extraLengths[position])
        return (offsets[position] - UInt64(headerLength), offsets[position], Int(sizes[position]))
    }

    /// Tile (`level`, `column`, `row`)'s bytes, read from `source` with one read that includes its local header, which
    /// must name the tile and put its bytes where the index does. Nil when the archive lacks the tile.
    ///
    /// - Throws: ``ArchiveError`` when the read fails or the header disagrees: never bytes from elsewhere.
    /// - Complexity: one read of about 80 bytes more than the tile.
    public func readTile(level: Int, column: Int, row: Int, from source: some ArchiveByteSource) throws(ArchiveError) -> [UInt8]? {
        guard let record = tileRecord(level: level, column: column, row: row) else { return nil }
        let bytes = try source.read(at: record.headerOffset, count: Int(record.offset - record.headerOffset) + record.size)
        return try tileBytes(level: level, column: column, row: row, record: bytes)
    }

    /// The tile's bytes from `record`, the bytes at ``tileRecord(level:column:row:)`` (read by the caller), its local
    /// header checked.
    ///
    /// - Throws: ``ArchiveError`` when the header disagrees with the index.
    /// - Precondition: `record` is as long as ``tileRecord(level:column:row:)`` says.
    public func tileBytes(level: Int, column: Int, row: Int, record: [UInt8]) throws(ArchiveError) -> [UInt8] {
        let start = try record.withArchiveBytes { (bytes) throws(ArchiveError) in
            try checkTileRecord(level: level, column: column, row: row, record: bytes)
        }
        return Array(record[start...])
    }

    /// Checks `record`, the bytes at ``tileRecord(level:column:row:)``, without copying them (its local header must
    /// name the tile and end where the index says); returns where the tile's bytes start in it.
    ///
    /// - Throws: ``ArchiveError`` when the header disagrees with the index.
    /// - Precondition: `record` is as long as ``tileRecord(level:column:row:)`` says.
    public func checkTileRecord(level: Int, column: Int, row: Int, record: UnsafeRawBufferPointer) throws(ArchiveError) -> Int {
        guard let place = tileRecord(level: level, column: column, row: row), record.count == Int(place.offset - place.headerOffset) + place.size
        else { preconditionFailure("a tile's record is read as tileRecord(level:column:row:) gives it") }
        let headerLength = Int(place.offset - place.headerOffset)
        try LocalHeader.checkRecord(record, name: tileName(level: level, column: column, row: row), headerLength: headerLength, label: label)
        return headerLength
    }

    /// Where associated image `kind` (one of ``associated``) lies with its local header: `headerOffset ..< offset + size`,
    /// for ``associatedBytes(_:record:)`` to check and trim. Nil when the archive keeps no such image.
    public func associatedRecord(_ kind: String) -> (headerOffset: UInt64, offset: UInt64, size: Int)? {
        guard let entry = associated[kind], let headerOffset = associatedHeaders[kind] else { return nil }
        return (headerOffset, entry.offset, entry.size)
    }

    /// Associated image `kind`'s bytes from `record`, the bytes at ``associatedRecord(_:)`` (read by the caller), its
    /// local header checked as a tile's is.
    ///
    /// - Throws: ``ArchiveError`` when the header disagrees with the index.
    /// - Precondition: `record` is as long as ``associatedRecord(_:)`` says.
    public func associatedBytes(_ kind: String, record: [UInt8]) throws(ArchiveError) -> [UInt8] {
        guard let place = associatedRecord(kind), record.count == Int(place.offset - place.headerOffset) + place.size else {
            preconditionFailure("an associated image's record is read as associatedRecord(_:) gives it")
        }
        let name = tileNamePrefix + Array("associated/\(kind).jpg".utf8)
        return try LocalHeader.entryBytes(record, name: name, headerLength: Int(place.offset - place.headerOffset), label: label)
    }

    /// The tile's entry name, `TOP/STEM_files/LEVEL/COLUMN_ROW.FORMAT`, as stored (tile names are canonical: no
    /// leading zeros, see `TileName`).
    func tileName(level: Int, column: Int, row: Int) -> [UInt8] {
        tileNamePrefix + Array("\(level)/\(column)_\(row)".utf8) + tileNameSuffix
    }

    /// The tile's place in ``offsets``, ``sizes`` and ``extraLengths``, or nil when it is absent.
    private func position(level: Int, column: Int, row: Int) -> Int? {
        guard level >= 0, level < levelStarts.count else { return nil }
        let grid = descriptor.pyramid.grid(level)
        guard column >= 0, column < grid.columns, row >= 0, row < grid.rows else { return nil }
        let slot = levelStarts[level] + row * grid.columns + column
        guard !slots.isEmpty else { return offsets[slot] == Self.absent ? nil : slot }
        var low = 0
        var high = slots.count
        while low < high {
            let middle = (low + high) / 2
            if slots[middle] < slot { low = middle + 1 } else { high = middle }
        }
        return low < slots.count && slots[low] == slot ? low : nil
    }
}
