/// An archive's end of central directory record, with the ZIP64 record's values where the short fields say
/// "see ZIP64": how many entries, and where the central directory lies. Checked against the file's size.
struct EndRecord {
    /// Entries in the central directory.
    let count: UInt64
    /// Where the central directory starts, in bytes.
    let directoryOffset: UInt64
    /// The central directory's size in bytes.
    let directorySize: UInt64

    /// The bytes at the end of an archive the end record is searched in: the record and the longest comment it can
    /// have. A reader that fetches at least these first never fetches twice to find the record.
    static let searchLength = ZIPLayout.endSize + ZIPLayout.maxCommentLength

    /// Finds and checks the end record of the archive `source` reads: one read of its last ``searchLength`` bytes,
    /// and two small ones (the ZIP64 locator and record) when the short fields say "see ZIP64".
    init(source: some ArchiveByteSource, label: String) throws(ArchiveError) {
        let fileSize = source.size
        guard fileSize >= UInt64(ZIPLayout.endSize) else { throw ArchiveError("\(label): too short to be a ZIP archive (\(fileSize) bytes)") }
        let tailLength = Int(min(fileSize, UInt64(Self.searchLength)))
        let tailStart = fileSize - UInt64(tailLength)
        let tail = try source.read(at: tailStart, count: tailLength)
        let found: (position: Int, fields: (UInt16, UInt16, UInt32, UInt32))? = tail.withUnsafeBytes { bytes in
            // The record whose comment runs exactly to the end of the file, nearest the end.
            var position = tailLength - ZIPLayout.endSize
            while position >= 0 {
                if bytes.readLE(position, as: UInt32.self) == ZIPLayout.endSignature,
                    Int(bytes.readLE(position + 20, as: UInt16.self)) == tailLength - position - ZIPLayout.endSize
                {
                    guard bytes.readLE(position + 4, as: UInt16.self) == 0, bytes.readLE(position + 6, as: UInt16.self) == 0 else { return nil }
                    return (
                        position,
                        (
                            bytes.readLE(position + 8, as: UInt16.self), bytes.readLE(position + 10, as: UInt16.self),
                            bytes.readLE(position + 12, as: UInt32.self), bytes.readLE(position + 16, as: UInt32.self)
                        )
                    )
                }
                position -= 1
            }
            return nil
        }
        guard let found else { throw ArchiveError("\(label): no end of central directory record (truncated, or not a one-disk ZIP archive)") }
        let endOffset = tailStart + UInt64(found.position)
        let (onDisk, total, size, offset) = found.fields
        guard onDisk == total else { throw ArchiveError("\(label): a multi-disk ZIP archive") }
        let needsZIP64 = total == ZIPLayout.marker16 || size == ZIPLayout.marker32 || offset == ZIPLayout.marker32
        var limit = endOffset
        if needsZIP64 {
            let zip64 = try Self.zip64(source: source, endOffset: endOffset, label: label)
            // A short field that is not a marker must agree with the ZIP64 record.
            guard total == ZIPLayout.marker16 || UInt64(total) == zip64.count, size == ZIPLayout.marker32 || UInt64(size) == zip64.size,
                offset == ZIPLayout.marker32 || UInt64(offset) == zip64.offset
            else { throw ArchiveError("\(label): the ZIP64 end record disagrees with the end record") }
            (count, directorySize, directoryOffset, limit) = (zip64.count, zip64.size, zip64.offset, zip64.recordOffset)
        } else {
            (count, directorySize, directoryOffset) = (UInt64(total), UInt64(size), UInt64(offset))
        }
        let (directoryEnd, overflow) = directoryOffset.addingReportingOverflow(directorySize)
        guard !overflow, directoryEnd <= limit else {
            throw ArchiveError(
                "\(label): the central directory (\(directorySize) bytes at \(directoryOffset)) reaches past the end records at \(limit)")
        }
        guard count <= directorySize / UInt64(ZIPLayout.centralHeaderSize) else {
            throw ArchiveError("\(label): \(count) entries cannot fit in a central directory of \(directorySize) bytes")
        }
    }

    /// The ZIP64 end record the locator before the end record at `endOffset` points to.
    private static func zip64(source: some ArchiveByteSource, endOffset: UInt64, label: String) throws(ArchiveError) -> (
        count: UInt64, size: UInt64, offset: UInt64, recordOffset: UInt64
    ) {
        guard endOffset >= UInt64(ZIPLayout.zip64LocatorSize + ZIPLayout.zip64EndSize) else {
            throw ArchiveError("\(label): the end record asks for ZIP64 but there is no room for its records")
        }
        let locatorOffset = endOffset - UInt64(ZIPLayout.zip64LocatorSize)
        let locator = try source.read(at: locatorOffset, count: ZIPLayout.zip64LocatorSize)
        let (signature, recordOffset, disks) = locator.withUnsafeBytes {
            ($0.readLE(0, as: UInt32.self), $0.readLE(8, as: UInt64.self), $0.readLE(16, as: UInt32.self))
        }
        guard signature == ZIPLayout.zip64LocatorSignature else {
            throw ArchiveError("\(label): the end record asks for ZIP64 but has no ZIP64 locator")
        }
        guard disks == 1 else { throw ArchiveError("\(label): a multi-disk ZIP archive") }
        guard recordOffset <= locatorOffset - UInt64(ZIPLayout.zip64EndSize) else {
            throw ArchiveError("\(label): the ZIP64 locator points past itself (\(recordOffset))")
        }
        let record = try source.read(at: recordOffset, count: ZIPLayout.zip64EndSize)
        return try record.withUnsafeBytes { bytes in
            Result { () throws(ArchiveError) in
                guard bytes.readLE(0, as: UInt32.self) == ZIPLayout.zip64EndSignature else {
                    throw ArchiveError("\(label): no ZIP64 end record where the locator points (\(recordOffset))")
                }
                let onDisk = bytes.readLE(24, as: UInt64.self)
                let total = bytes.readLE(32, as: UInt64.self)
                guard bytes.readLE(16, as: UInt32.self) == 0, bytes.readLE(20, as: UInt32.self) == 0, onDisk == total else {
                    throw ArchiveError("\(label): a multi-disk ZIP archive")
                }
                return (total, bytes.readLE(40, as: UInt64.self), bytes.readLE(48, as: UInt64.self), recordOffset)
            }
        }.get()
    }
}
