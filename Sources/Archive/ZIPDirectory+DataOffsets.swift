extension ZIPDirectory {
    /// How an entry's bytes are found behind its local header, whose extra field the central directory does not
    /// measure (an entry's bytes start at its header's offset + 30 + name length + *local* extra length).
    ///
    /// Writers differ: Tiler's ``ZIPWriter`` writes no local extra field and no data descriptor, so entries lie back to
    /// back; libvips 8.14's `dzsave` (libarchive) sets flag bit 3 on every entry, writes a 29-byte local extra field
    /// (ZIP64 with zero sizes, then an extended timestamp) and a 24-byte ZIP64 data descriptor after each entry's bytes.
    /// Neither leaves gaps between entries; no writer promises that the local extra field is as long as the central one.
    public enum LocalHeaders: Sendable {
        /// Read and check every entry's local header now: one small read per entry (a `pread` each for a file).
        case readEach
        /// Derive every entry's local extra length from the room the central directory leaves between the entry and
        /// the next one, without reading per entry: for a source where every read is a network round trip.
        ///
        /// The room after an entry (before the next local header, or the central directory) is its local extra field,
        /// plus its data descriptor when flag bit 3 says one follows. Without bit 3 the extra length is the room. With
        /// it, the descriptor's length (12, 16, 20 or 24 bytes) is learned from local headers: those the source
        /// ``ArchiveByteSource/holds(_:)`` (checked for free, e.g. the last entries of an archive whose tail was
        /// fetched), or, when it holds none, one header read for the purpose (for a remote archive, one more round
        /// trip). The central extra length is no guide: Info-ZIP's `zip -fd` writes 28 bytes locally and 24 in the
        /// central directory, which with its 16-byte descriptors looks like 24 + a 20-byte descriptor. Only when the
        /// headers disagree is the extra field taken to be as long as the central one, if that leaves a descriptor's
        /// length. An entry that fits none of these is refused now.
        ///
        /// Every derived offset is a prediction that whoever reads the entry must check: the read includes the local
        /// header (``SZIArchive/readTile(level:column:row:from:)``), and a header that does not say exactly what was
        /// derived fails that read with an ``ArchiveError`` — a wrong byte is never served. Unused bytes between two
        /// entries (an archive edited in place) are taken for the first one's extra field, so that entry fails when
        /// read; 64 KiB or more of them cannot be an extra field, and the archive is refused when opened.
        case derive
    }

    /// Data descriptor lengths: CRC-32 and 32-bit sizes, with or without the signature, or the same with ZIP64's sizes.
    private static let descriptorLengths: Set<UInt64> = [12, 16, 20, 24]

    /// Every entry's data offset from its local header, each read and checked; then no two entries may overlap.
    static func readDataOffsets(source: some ArchiveByteSource, parser: CentralParser, label: String) throws(ArchiveError) -> [UInt64] {
        var offsets = [UInt64](repeating: 0, count: parser.headerOffsets.count)
        for index in offsets.indices {
            let at = parser.headerOffsets[index]
            let wanted = ZIPLayout.localHeaderSize + parser.name(index).count
            guard at + UInt64(wanted) <= parser.directoryOffset else {
                throw ArchiveError("\(label): entry \(parser.describe(index)) has its local header past the central directory")
            }
            let header: [UInt8]
            do {
                header = try source.read(at: at, count: wanted)
            } catch {
                throw ArchiveError("\(label): cannot read the local header of \(parser.describe(index))", underlying: error)
            }
            let local = try header.withArchiveBytes { (bytes) throws(ArchiveError) in
                try LocalHeader.check(bytes, name: parser.name(index), size: parser.sizes[index], label: label)
            }
            offsets[index] = at + UInt64(local.length)
            guard offsets[index] + parser.sizes[index] <= parser.directoryOffset else {
                throw ArchiveError("\(label): entry \(parser.describe(index)) reaches past the start of the central directory")
            }
        }
        let order = offsets.indices.sorted { parser.headerOffsets[$0] < parser.headerOffsets[$1] }
        for (previous, next) in zip(order, order.dropFirst()) where offsets[previous] + parser.sizes[previous] > parser.headerOffsets[next] {
            throw ArchiveError("\(label): entries \(parser.describe(previous)) and \(parser.describe(next)) overlap")
        }
        return offsets
    }

    /// Every entry's data offset derived as ``LocalHeaders/derive`` says; the local headers `source` holds are checked.
    ///
    /// - Complexity: O(n log n) for n entries; reads only what `source` holds.
    static func deriveDataOffsets(source: some ArchiveByteSource, parser: CentralParser, label: String) throws(ArchiveError) -> [UInt64] {
        let room = try Self.room(parser: parser, label: label)
        let count = room.count
        var offsets = [UInt64](repeating: 0, count: count)
        var checked = [Bool](repeating: false, count: count)
        var trailers: Set<UInt64> = []
        // Reads and checks entry `index`'s local header, and learns its data descriptor's length if it has one.
        func check(_ index: Int) throws(ArchiveError) {
            let at = parser.headerOffsets[index]
            let header = try source.read(at: at, count: ZIPLayout.localHeaderSize + parser.name(index).count)
            let local = try header.withArchiveBytes { (bytes) throws(ArchiveError) in
                try LocalHeader.check(bytes, name: parser.name(index), size: parser.sizes[index], label: label)
            }
            guard UInt64(local.extraLength) <= room[index] else {
                throw ArchiveError("\(label): entry \(parser.describe(index)) reaches into the next entry or the central directory")
            }
            offsets[index] = at + UInt64(local.length)
            checked[index] = true
            if parser.flags[index] & ZIPLayout.flagDataDescriptor != 0 { trailers.insert(room[index] - UInt64(local.extraLength)) }
        }
        for index in 0..<count {
            let at = parser.headerOffsets[index]
            if source.holds(at..<at + UInt64(ZIPLayout.localHeaderSize + parser.name(index).count)) { try check(index) }
        }
        let described = (0..<count).filter { !checked[$0] && parser.flags[$0] & ZIPLayout.flagDataDescriptor != 0 }
        if trailers.isEmpty, let sample = described.max(by: { parser.headerOffsets[$0] < parser.headerOffsets[$1] }) {
            // The one read for the purpose: the entry nearest the central directory, whose bytes a remote open that
            // fetched the directory with what precedes it is likeliest to hold already.
            try check(sample)
        }
        let trailer = trailers.count == 1 ? trailers.first : nil
        for index in 0..<count where !checked[index] {
            let extra = try derivedExtraLength(index, room: room[index], trailer: trailer, parser: parser, label: label)
            offsets[index] = parser.headerOffsets[index] + UInt64(ZIPLayout.localHeaderSize + parser.name(index).count) + extra
        }
        return offsets
    }

    /// The bytes after each entry's header, name and data that the layout leaves before the next local header (or the
    /// central directory, after the last): its local extra field and data descriptor. Refuses entries that overlap.
    private static func room(parser: CentralParser, label: String) throws(ArchiveError) -> [UInt64] {
        let count = parser.headerOffsets.count
        let order = (0..<count).sorted { parser.headerOffsets[$0] < parser.headerOffsets[$1] }
        var room = [UInt64](repeating: 0, count: count)
        for (position, index) in order.enumerated() {
            let last = position + 1 == count
            let next = last ? parser.directoryOffset : parser.headerOffsets[order[position + 1]]
            // The parser checked offset + size ≤ the central directory's offset, so this cannot overflow.
            let fixed = parser.headerOffsets[index] + UInt64(ZIPLayout.localHeaderSize + parser.name(index).count) + parser.sizes[index]
            guard fixed <= next else {
                if last { throw ArchiveError("\(label): entry \(parser.describe(index)) reaches past the start of the central directory") }
                throw ArchiveError("\(label): entries \(parser.describe(index)) and \(parser.describe(order[position + 1])) overlap")
            }
            room[index] = next - fixed
        }
        return room
    }

    /// Entry `index`'s local extra length, derived from the `room` after it and, with a data descriptor, the
    /// descriptor length the checked headers agree on (`trailer`) or the central extra length.
    private static func derivedExtraLength(
        _ index: Int, room: UInt64, trailer: UInt64?, parser: CentralParser, label: String
    ) throws(ArchiveError) -> UInt64 {
        let maxExtra = UInt64(UInt16.max)
        if parser.flags[index] & ZIPLayout.flagDataDescriptor == 0 {
            if room <= maxExtra { return room }
        } else if let trailer, room >= trailer, room - trailer <= maxExtra {
            return room - trailer
        } else {
            let central = UInt64(parser.extraLengths[index])
            if room >= central, Self.descriptorLengths.contains(room - central) { return central }
        }
        throw ArchiveError(
            "\(label): where entry \(parser.describe(index))'s bytes start cannot be derived from the central directory (\(room) bytes after it)")
    }
}
