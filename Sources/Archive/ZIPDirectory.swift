import Glibc

/// The checked central directory of a stored ZIP archive: every entry's name and where its bytes lie, read once.
///
/// Nothing is taken on trust. The end record (and the ZIP64 record it points to) must agree with the file's size; the
/// central directory must lie inside the file; every entry must be stored (not compressed, not encrypted), its name a
/// relative path without `.` or `..` components and unique; its local header must be where the directory says, name
/// the same entry, and its bytes must lie before the central directory without overlapping another entry's. Anything
/// else is refused with one line. How the local headers are checked — each one read now, or derived now and checked
/// by whoever reads the entry — is ``LocalHeaders``.
///
/// Compact: names in one byte array, offsets and sizes in two more — a few allocations whatever the entry count.
public struct ZIPDirectory: Sendable {
    /// All entry names, back to back (UTF-8 or CP437 bytes, as stored).
    let names: [UInt8]
    /// Where each entry's name starts in ``names``; entry `i`'s name ends where entry `i + 1`'s starts.
    let nameStarts: [Int]
    /// Where each entry's local header starts in the file.
    let headerOffsets: [UInt64]
    /// Where each entry's bytes start in the file.
    public let dataOffsets: [UInt64]
    /// Each entry's size in bytes.
    public let sizes: [UInt64]
    /// The file's size in bytes.
    public let fileSize: UInt64
    /// How ``dataOffsets`` were found: every local header read, or derived from the central directory.
    public let localHeaders: LocalHeaders

    /// The largest central directory read, in bytes (a 22,000-tile SZI's is about 1.7 MB).
    public static let maxDirectoryBytes: UInt64 = 512 << 20

    /// The number of entries.
    public var count: Int { dataOffsets.count }

    /// Entry `index`'s name bytes. - Complexity: O(1).
    public func name(_ index: Int) -> ArraySlice<UInt8> {
        names[nameStarts[index]..<(index + 1 < nameStarts.count ? nameStarts[index + 1] : names.count)]
    }

    /// The length of entry `index`'s local extra field, in bytes: its bytes start this far after its name.
    func localExtraLength(_ index: Int) -> Int {
        Int(dataOffsets[index] - headerOffsets[index]) - ZIPLayout.localHeaderSize - name(index).count
    }

    /// Reads and checks the archive open as `fd` (reading with `pread`, so the offset is not moved), every local
    /// header included. `label` names it in errors.
    ///
    /// - Throws: ``ArchiveError`` saying what is wrong.
    /// - Complexity: O(n log n) for n entries; one read of the central directory and one small read per entry.
    public init(fd: Int32, label: String) throws(ArchiveError) {
        try self.init(source: FileByteSource(fd: fd, label: label), label: label)
    }

    /// Reads and checks the archive `source` reads; `label` names it in errors.
    ///
    /// - Parameter localHeaders: ``LocalHeaders/readEach`` (one small read per entry: right for a file) or
    ///   ``LocalHeaders/derive`` (no read per entry: for a source where each read is a round trip).
    /// - Throws: ``ArchiveError`` saying what is wrong.
    /// - Complexity: O(n log n) for n entries; reads: the end record's (one, three with ZIP64), the central directory
    ///   (one), and with ``LocalHeaders/readEach`` one per entry.
    public init(source: some ArchiveByteSource, label: String, localHeaders: LocalHeaders = .readEach) throws(ArchiveError) {
        let end = try EndRecord(source: source, label: label)
        guard end.directorySize <= Self.maxDirectoryBytes else {
            throw ArchiveError("\(label): central directory of \(end.directorySize) bytes is larger than \(Self.maxDirectoryBytes)")
        }
        let directory = try source.read(at: end.directoryOffset, count: Int(end.directorySize))
        var parser = CentralParser(label: label, directoryOffset: end.directoryOffset)
        try directory.withArchiveBytes { (bytes) throws(ArchiveError) in try parser.parse(bytes, count: end.count) }
        self.names = parser.names
        self.nameStarts = parser.nameStarts
        self.headerOffsets = parser.headerOffsets
        self.sizes = parser.sizes
        self.fileSize = source.size
        self.localHeaders = localHeaders
        switch localHeaders {
        case .readEach: self.dataOffsets = try Self.readDataOffsets(source: source, parser: parser, label: label)
        case .derive: self.dataOffsets = try Self.deriveDataOffsets(source: source, parser: parser, label: label)
        }
        try checkUniqueNames(label: label)
    }

    /// Entry `index`'s bytes, read from `source` with its local header in one read, the header checked.
    ///
    /// - Complexity: one read of 30 + name + extra + size bytes.
    func readEntry(_ index: Int, from source: some ArchiveByteSource, label: String) throws(ArchiveError) -> [UInt8] {
        let headerLength = Int(dataOffsets[index] - headerOffsets[index])
        let record = try source.read(at: headerOffsets[index], count: headerLength + Int(sizes[index]))
        return try LocalHeader.entryBytes(record, name: name(index), headerLength: headerLength, label: label)
    }

    /// Reads `count` bytes at `offset`, all of them or an error.
    public static func read(_ fd: Int32, at offset: UInt64, count: Int, label: String) throws(ArchiveError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let got = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
            if got < 0 {
                if errno == EINTR { continue }
                throw ArchiveError("\(label): cannot read", errno: errno)
            }
            guard got > 0 else { throw ArchiveError("\(label): the file ends inside a record at byte \(offset + UInt64(done))") }
            done += got
        }
        return bytes
    }

    /// Refuses an archive with two entries of one name: sorts entry numbers by name (no per-entry allocation).
    private func checkUniqueNames(label: String) throws(ArchiveError) {
        let order = (0..<count).sorted { name($0).lexicographicallyPrecedes(name($1)) }
        for (a, b) in zip(order, order.dropFirst()) where name(a).elementsEqual(name(b)) {
            throw ArchiveError("\(label): two entries are named \(String(decoding: name(a), as: UTF8.self))")
        }
    }
}
