extension SZIArchive {
    /// The first read of a remote open, in bytes: the last 64 KiB, which hold the end records and, for a pyramid of up
    /// to about 800 tiles, the whole central directory and the descriptor beside it. Never less than the end record's
    /// whole search space (22 + 65,535 bytes), so the record is never looked for twice.
    public static let defaultTailBytes = 1 << 16
    /// How far before a range it lacks a remote open starts the read that fetches it: writers put the descriptor and
    /// properties last, just before the central directory, so a directory larger than the tail comes with them.
    static let fetchLead: UInt64 = 1 << 16
    /// The most reads a remote open makes (1 tail + the central directory + a ZIP64 record + descriptor + two
    /// properties entries, each at worst elsewhere); more would mean a parser asking again for bytes it was given.
    static let maxOpenReads = 8

    /// Opens and indexes the SZI `source` reads, where each read is a round trip: as few reads as its layout allows.
    ///
    /// The first read is the archive's last `max(tailBytes, 65,557)` bytes (all of a smaller archive). The archive is
    /// then parsed — by the same code as a file, ``init(source:label:localHeaders:)`` with
    /// ``ZIPDirectory/LocalHeaders/derive`` — from the bytes fetched; when it needs bytes that were not (a central
    /// directory larger than the tail, a descriptor written first), they are fetched, with ``fetchLead`` bytes before
    /// them, and it is parsed again. So: one read when the central directory, the descriptor and the properties lie
    /// in the tail; two when the directory is larger but they lie within 64 KiB before it (Tiler's and libvips' SZIs);
    /// one more for each of them elsewhere, and one for an archive with data descriptors none of whose local headers
    /// came with those reads (see ``ZIPDirectory/LocalHeaders/derive``). No tile's local header is read for itself:
    /// each is checked when the tile is read (``readTile(level:column:row:from:)``), in the same read.
    ///
    /// - Parameters:
    ///   - label: The archive's name in errors (`s3://bucket/key`).
    ///   - tailBytes: The first read's length, in bytes; larger costs little transfer on one round trip.
    /// - Throws: ``ArchiveError``: the archive's fault as for a file, or a read's (its ``ArchiveError/underlying``).
    /// - Complexity: O(n log n) for n entries per parse, one parse per read; memory O(bytes fetched) until it returns.
    public init(source: some AsyncArchiveByteSource, label: String, tailBytes: Int = SZIArchive.defaultTailBytes) async throws(ArchiveError) {
        let fetched = FetchedBytes(size: source.size, label: label)
        let tail = min(source.size, UInt64(max(tailBytes, EndRecord.searchLength)))
        if tail > 0 { fetched.add(try await source.read(at: source.size - tail, count: Int(tail)), at: source.size - tail) }
        var reads = 1
        while true {
            do {
                self = try SZIArchive(source: fetched, label: label, localHeaders: .derive)
                return
            } catch {
                guard let missing = fetched.takeMissing(), reads < Self.maxOpenReads else { throw error }
                let range = fetched.rangeToFetch(for: missing, lead: Self.fetchLead)
                fetched.add(try await source.read(at: range.lowerBound, count: range.count), at: range.lowerBound)
                reads += 1
            }
        }
    }

    /// Tile (`level`, `column`, `row`)'s bytes, read from `source` with one read (one round trip) of its local header
    /// and bytes; the header must name the tile and put its bytes where the index says. Nil when the archive lacks it.
    ///
    /// - Throws: ``ArchiveError`` when the read fails (a replaced object: its ``ArchiveError/underlying``) or the header
    ///   disagrees: never bytes from elsewhere.
    public func readTile(level: Int, column: Int, row: Int, from source: some AsyncArchiveByteSource) async throws(ArchiveError) -> [UInt8]? {
        guard let record = tileRecord(level: level, column: column, row: row) else { return nil }
        let bytes = try await source.read(at: record.headerOffset, count: Int(record.offset - record.headerOffset) + record.size)
        return try tileBytes(level: level, column: column, row: row, record: bytes)
    }
}
