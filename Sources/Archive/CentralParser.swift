/// Walks a central directory's entries, checking each one, into the compact arrays ``ZIPDirectory`` keeps.
struct CentralParser {
    let label: String
    /// Where the central directory starts: every entry must lie before it.
    let directoryOffset: UInt64
    var names: [UInt8] = []
    var nameStarts: [Int] = []
    var headerOffsets: [UInt64] = []
    var sizes: [UInt64] = []
    /// Each entry's general purpose flags (bit 3: a data descriptor follows its bytes).
    var flags: [UInt16] = []
    /// Each entry's extra field length in the central directory (its local header's may differ).
    var extraLengths: [UInt16] = []

    init(label: String, directoryOffset: UInt64) {
        self.label = label
        self.directoryOffset = directoryOffset
    }

    /// Entry `index`'s name bytes.
    func name(_ index: Int) -> ArraySlice<UInt8> {
        names[nameStarts[index]..<(index + 1 < nameStarts.count ? nameStarts[index + 1] : names.count)]
    }

    /// Entry `index`'s name for an error message.
    func describe(_ index: Int) -> String {
        String(decoding: name(index), as: UTF8.self)
    }

    /// Parses `count` entries from `bytes`, which must hold exactly them.
    mutating func parse(_ bytes: UnsafeRawBufferPointer, count: UInt64) throws(ArchiveError) {
        let count = Int(count)
        names.reserveCapacity(count * 32)
        nameStarts.reserveCapacity(count)
        headerOffsets.reserveCapacity(count)
        sizes.reserveCapacity(count)
        flags.reserveCapacity(count)
        extraLengths.reserveCapacity(count)
        var at = 0
        for _ in 0..<count {
            at = try entry(bytes, at: at)
        }
        guard at == bytes.count else {
            throw ArchiveError("\(label): the central directory holds \(bytes.count - at) bytes more than its \(count) entries")
        }
    }

    /// Parses the entry at `at` and returns where the next one starts.
    private mutating func entry(_ bytes: UnsafeRawBufferPointer, at: Int) throws(ArchiveError) -> Int {
        guard at + ZIPLayout.centralHeaderSize <= bytes.count, bytes.readLE(at, as: UInt32.self) == ZIPLayout.centralHeaderSignature else {
            throw ArchiveError("\(label): central directory entry \(sizes.count + 1) is damaged")
        }
        let flags = bytes.readLE(at + 8, as: UInt16.self)
        let method = bytes.readLE(at + 10, as: UInt16.self)
        var compressed = UInt64(bytes.readLE(at + 20, as: UInt32.self))
        var size = UInt64(bytes.readLE(at + 24, as: UInt32.self))
        let nameLength = Int(bytes.readLE(at + 28, as: UInt16.self))
        let extraLength = Int(bytes.readLE(at + 30, as: UInt16.self))
        let commentLength = Int(bytes.readLE(at + 32, as: UInt16.self))
        let disk = bytes.readLE(at + 34, as: UInt16.self)
        var offset = UInt64(bytes.readLE(at + 42, as: UInt32.self))
        let nameStart = at + ZIPLayout.centralHeaderSize
        let next = nameStart + nameLength + extraLength + commentLength
        guard next <= bytes.count else { throw ArchiveError("\(label): central directory entry \(sizes.count + 1) runs past the directory's end") }
        let name = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<nameStart + nameLength])
        let shown = String(decoding: name, as: UTF8.self)
        try checkName(name, shown: shown)
        guard flags & ZIPLayout.flagEncrypted == 0 else { throw ArchiveError("\(label): entry \(shown) is encrypted") }
        guard method == 0 else { throw ArchiveError("\(label): entry \(shown) is compressed (method \(method)); only stored entries are served") }
        let extra = UnsafeRawBufferPointer(rebasing: bytes[nameStart + nameLength..<nameStart + nameLength + extraLength])
        try readZIP64(extra, size: &size, compressed: &compressed, offset: &offset, disk: disk, shown: shown)
        guard compressed == size else {
            throw ArchiveError("\(label): entry \(shown) is stored but its sizes disagree (\(compressed) and \(size) bytes)")
        }
        guard offset < directoryOffset, size <= directoryOffset - offset else {
            throw ArchiveError("\(label): entry \(shown) (\(size) bytes at \(offset)) reaches past the start of the central directory")
        }
        nameStarts.append(names.count)
        names.append(contentsOf: name)
        headerOffsets.append(offset)
        sizes.append(size)
        self.flags.append(flags)
        extraLengths.append(UInt16(extraLength))
        return next
    }

    /// Takes the 64-bit values a ZIP64 extra field holds for each short field set to the marker, in the order the
    /// format gives (size, compressed size, offset, disk); a missing one is refused.
    private func readZIP64(
        _ extra: UnsafeRawBufferPointer, size: inout UInt64, compressed: inout UInt64, offset: inout UInt64, disk: UInt16, shown: String
    ) throws(ArchiveError) {
        let marker = UInt64(ZIPLayout.marker32)
        var wanted = (size == marker ? 1 : 0) + (compressed == marker ? 1 : 0) + (offset == marker ? 1 : 0)
        var at = 0
        while at + 4 <= extra.count {
            let tag = extra.readLE(at, as: UInt16.self)
            let length = Int(extra.readLE(at + 2, as: UInt16.self))
            guard at + 4 + length <= extra.count else { throw ArchiveError("\(label): entry \(shown) has a damaged extra field") }
            if tag == ZIPLayout.zip64ExtraTag {
                var field = at + 4
                func take() throws(ArchiveError) -> UInt64 {
                    guard field + 8 <= at + 4 + length else {
                        throw ArchiveError("\(label): entry \(shown) has a ZIP64 field too short for its sizes")
                    }
                    defer { field += 8 }
                    return extra.readLE(field, as: UInt64.self)
                }
                if size == marker { size = try take() }
                if compressed == marker { compressed = try take() }
                if offset == marker { offset = try take() }
                wanted = 0
            }
            at += 4 + length
        }
        guard wanted == 0 else { throw ArchiveError("\(label): entry \(shown) says ZIP64 but has no ZIP64 field") }
        guard disk == 0 || disk == ZIPLayout.marker16 else { throw ArchiveError("\(label): a multi-disk ZIP archive") }
    }

    /// Refuses names that could leave a folder: empty, absolute, with a `\`, a NUL, or a `.` or `..` component.
    private func checkName(_ name: UnsafeRawBufferPointer, shown: String) throws(ArchiveError) {
        guard !name.isEmpty, name.first != UInt8(ascii: "/"), !name.contains(UInt8(ascii: "\\")), !name.contains(0) else {
            throw ArchiveError("\(label): entry name \"\(shown)\" is not a relative path")
        }
        for component in name.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropLast()
        where component.isEmpty || component.elementsEqual([UInt8(ascii: ".")]) || component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
            throw ArchiveError("\(label): entry name \"\(shown)\" has an empty, \".\" or \"..\" component")
        }
        let last = name.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).last!
        if last.elementsEqual([UInt8(ascii: ".")]) || last.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
            throw ArchiveError("\(label): entry name \"\(shown)\" has a \".\" or \"..\" component")
        }
    }
}
