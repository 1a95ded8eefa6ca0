import Glibc

/// The checked central directory of a stored ZIP archive: every entry's name and where its bytes lie, read once.
///
/// Nothing is taken on trust. The end record (and the ZIP64 record it points to) must agree with the file's size; the
/// central directory must lie inside the file; every entry must be stored (not compressed, not encrypted), its name a
/// relative path without `.` or `..` components and unique; its local header must be where the directory says, name
/// the same entry, and its bytes must lie before the central directory without overlapping another entry's. Anything
/// else is refused with one line.
///
/// Compact: names in one byte array, offsets and sizes in two more — a few allocations whatever the entry count.
public struct ZIPDirectory: Sendable {
    /// All entry names, back to back (UTF-8 or CP437 bytes, as stored).
    let names: [UInt8]
    /// Where each entry's name starts in ``names``; entry `i`'s name ends where entry `i + 1`'s starts.
    let nameStarts: [Int]
    /// Where each entry's bytes start in the file.
    public let dataOffsets: [UInt64]
    /// Each entry's size in bytes.
    public let sizes: [UInt64]
    /// The file's size in bytes.
    public let fileSize: UInt64

    /// The largest central directory read, in bytes (a 22,000-tile SZI's is about 1.7 MB).
    public static let maxDirectoryBytes: UInt64 = 512 << 20

    /// The number of entries.
    public var count: Int { dataOffsets.count }

    /// Entry `index`'s name bytes. - Complexity: O(1).
    public func name(_ index: Int) -> ArraySlice<UInt8> {
        names[nameStarts[index]..<(index + 1 < nameStarts.count ? nameStarts[index + 1] : names.count)]
    }

    /// Reads and checks the archive open as `fd` (reading with `pread`, so the offset is not moved). `label` names it
    /// in errors.
    ///
    /// - Throws: ``ArchiveError`` saying what is wrong.
    /// - Complexity: O(n log n) for n entries; one read of the central directory and one small read per entry.
    public init(fd: Int32, label: String) throws(ArchiveError) {
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw ArchiveError("\(label): cannot read", errno: errno) }
        let fileSize = UInt64(status.st_size)
        let end = try EndRecord(fd: fd, fileSize: fileSize, label: label)
        guard end.directorySize <= Self.maxDirectoryBytes else {
            throw ArchiveError("\(label): central directory of \(end.directorySize) bytes is larger than \(Self.maxDirectoryBytes)")
        }
        let directory = try Self.read(fd, at: end.directoryOffset, count: Int(end.directorySize), label: label)
        var parser = CentralParser(label: label, directoryOffset: end.directoryOffset)
        try directory.withUnsafeBytes { bytes in Result { () throws(ArchiveError) in try parser.parse(bytes, count: end.count) } }.get()
        self.names = parser.names
        self.nameStarts = parser.nameStarts
        self.sizes = parser.sizes
        self.fileSize = fileSize
        self.dataOffsets = try Self.locateData(fd: fd, parser: parser, label: label)
        try checkUniqueNames(label: label)
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

    /// Finds each entry's bytes after its local header, checking the header against the central directory and that
    /// no two entries overlap.
    private static func locateData(fd: Int32, parser: CentralParser, label: String) throws(ArchiveError) -> [UInt64] {
        var offsets = [UInt64](repeating: 0, count: parser.headerOffsets.count)
        var header = [UInt8](repeating: 0, count: ZIPLayout.localHeaderSize + 0xFFFF)
        for index in offsets.indices {
            let start = parser.nameStarts[index]
            let end = index + 1 < parser.nameStarts.count ? parser.nameStarts[index + 1] : parser.names.count
            let nameLength = end - start
            let at = parser.headerOffsets[index]
            let wanted = ZIPLayout.localHeaderSize + nameLength
            guard at + UInt64(wanted) <= parser.directoryOffset else {
                throw ArchiveError("\(label): entry \(parser.describe(index)) has its local header past the central directory")
            }
            let got = header.withUnsafeMutableBytes { pread(fd, $0.baseAddress!, wanted, off_t(at)) }
            guard got == wanted else { throw ArchiveError("\(label): cannot read the local header of \(parser.describe(index))") }
            let local = header.withUnsafeBytes { bytes in
                (
                    signature: bytes.readLE(0, as: UInt32.self), flags: bytes.readLE(6, as: UInt16.self), method: bytes.readLE(8, as: UInt16.self),
                    compressedSize: bytes.readLE(18, as: UInt32.self), size: bytes.readLE(22, as: UInt32.self),
                    nameLength: Int(bytes.readLE(26, as: UInt16.self)),
                    extraLength: Int(bytes.readLE(28, as: UInt16.self))
                )
            }
            guard local.signature == ZIPLayout.localHeaderSignature, local.method == 0, local.nameLength == nameLength,
                header[ZIPLayout.localHeaderSize..<wanted].elementsEqual(parser.names[start..<end])
            else {
                throw ArchiveError("\(label): the local header of \(parser.describe(index)) does not match the central directory")
            }
            // Sizes in the local header too (unless a data descriptor follows the data, or ZIP64's extra field holds
            // them): a reader that walks local headers, `unzip` among them, must find the same entry there.
            let described = local.flags & ZIPLayout.flagDataDescriptor != 0
            let inZIP64 = local.compressedSize == ZIPLayout.marker32 || local.size == ZIPLayout.marker32
            guard described || inZIP64 || (UInt64(local.compressedSize) == parser.sizes[index] && UInt64(local.size) == parser.sizes[index]) else {
                throw ArchiveError("\(label): the local header of \(parser.describe(index)) gives other sizes than the central directory")
            }
            offsets[index] = at + UInt64(wanted + local.extraLength)
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

    /// Refuses an archive with two entries of one name: sorts entry numbers by name (no per-entry allocation).
    private func checkUniqueNames(label: String) throws(ArchiveError) {
        let order = (0..<count).sorted { name($0).lexicographicallyPrecedes(name($1)) }
        for (a, b) in zip(order, order.dropFirst()) where name(a).elementsEqual(name(b)) {
            throw ArchiveError("\(label): two entries are named \(String(decoding: name(a), as: UTF8.self))")
        }
    }
}
