/// The fixed part of a local file header (30 bytes at the offset the central directory gives), and the one check that
/// it describes the entry the central directory does: whoever reads an entry's bytes checks the header in front of them
/// with ``check(_:name:size:label:)`` — ``ZIPDirectory`` for every entry of a file, a tile read for its own tile.
struct LocalHeader {
    let signature: UInt32
    let flags: UInt16
    let method: UInt16
    let compressedSize: UInt32
    let size: UInt32
    let nameLength: Int
    let extraLength: Int

    /// The header, its name and its extra field, in bytes: where the entry's bytes start, counted from the header.
    var length: Int { ZIPLayout.localHeaderSize + nameLength + extraLength }

    /// The fields of the header at the start of `bytes`. - Precondition: `bytes` holds at least 30 bytes.
    init(_ bytes: UnsafeRawBufferPointer) {
        signature = bytes.readLE(0, as: UInt32.self)
        flags = bytes.readLE(6, as: UInt16.self)
        method = bytes.readLE(8, as: UInt16.self)
        compressedSize = bytes.readLE(18, as: UInt32.self)
        size = bytes.readLE(22, as: UInt32.self)
        nameLength = Int(bytes.readLE(26, as: UInt16.self))
        extraLength = Int(bytes.readLE(28, as: UInt16.self))
    }

    /// Checks the local header at the start of `bytes` against the central directory's entry `name` of `size` bytes:
    /// signature, stored, the same name, and the same sizes (unless a data descriptor follows the bytes, or ZIP64's
    /// extra field holds them). A reader that walks local headers, `unzip` among them, must find the same entry there.
    ///
    /// - Parameter bytes: At least the header and its name (30 + `name.count` bytes).
    /// - Returns: The header, whose ``length`` says where the entry's bytes start.
    /// - Throws: ``ArchiveError``, `LABEL: the local header of NAME does not match the central directory` or `… gives
    ///   other sizes than the central directory`.
    static func check(_ bytes: UnsafeRawBufferPointer, name: some Collection<UInt8>, size: UInt64, label: String) throws(ArchiveError) -> LocalHeader
    {
        let shown = { String(decoding: name, as: UTF8.self) }
        let wanted = ZIPLayout.localHeaderSize + name.count
        guard bytes.count >= wanted else { throw ArchiveError("\(label): cannot read the local header of \(shown())") }
        let local = LocalHeader(bytes)
        guard local.signature == ZIPLayout.localHeaderSignature, local.method == 0, local.nameLength == name.count,
            UnsafeRawBufferPointer(rebasing: bytes[ZIPLayout.localHeaderSize..<wanted]).elementsEqual(name)
        else {
            throw ArchiveError("\(label): the local header of \(shown()) does not match the central directory")
        }
        let described = local.flags & ZIPLayout.flagDataDescriptor != 0
        let inZIP64 = local.compressedSize == ZIPLayout.marker32 || local.size == ZIPLayout.marker32
        guard described || inZIP64 || (UInt64(local.compressedSize) == size && UInt64(local.size) == size) else {
            throw ArchiveError("\(label): the local header of \(shown()) gives other sizes than the central directory")
        }
        return local
    }

    /// The entry's bytes from `record`, what one read of its local header, name, extra field and bytes gave, after
    /// checking the header (``check(_:name:size:label:)``) and that its bytes start `headerLength` bytes in, as the
    /// index says (a derived offset is checked here: ``ZIPDirectory/LocalHeaders/derive``).
    ///
    /// - Complexity: O(`record.count`): one copy of the entry's bytes.
    static func entryBytes(_ record: [UInt8], name: some Collection<UInt8>, headerLength: Int, label: String) throws(ArchiveError) -> [UInt8] {
        try record.withArchiveBytes { (bytes) throws(ArchiveError) in try checkRecord(bytes, name: name, headerLength: headerLength, label: label) }
        return Array(record[headerLength...])
    }

    /// Checks `record` as ``entryBytes(_:name:headerLength:label:)`` does, without copying its bytes: they are
    /// `record[headerLength...]`.
    static func checkRecord(_ record: UnsafeRawBufferPointer, name: some Collection<UInt8>, headerLength: Int, label: String) throws(ArchiveError) {
        let size = record.count - headerLength
        precondition(size >= 0, "a record holds its local header")
        let local = try check(record, name: name, size: UInt64(size), label: label)
        guard local.length == headerLength else {
            let expected = headerLength - ZIPLayout.localHeaderSize - name.count
            throw ArchiveError(
                "\(label): the local header of \(String(decoding: name, as: UTF8.self)) does not match the central directory "
                    + "(an extra field of \(local.extraLength) bytes, not \(expected))")
        }
    }
}
