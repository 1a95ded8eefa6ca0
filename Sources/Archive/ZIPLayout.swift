/// The parts of the ZIP format (PKWARE APPNOTE 6.3) that stored archives use: record signatures, fixed sizes, the
/// ZIP64 markers, and little-endian field access.
enum ZIPLayout {
    static let localHeaderSignature: UInt32 = 0x0403_4b50
    static let centralHeaderSignature: UInt32 = 0x0201_4b50
    static let endSignature: UInt32 = 0x0605_4b50
    static let zip64EndSignature: UInt32 = 0x0606_4b50
    static let zip64LocatorSignature: UInt32 = 0x0706_4b50

    /// Fixed part of a local file header, in bytes.
    static let localHeaderSize = 30
    /// Fixed part of a central directory header, in bytes.
    static let centralHeaderSize = 46
    /// The end of central directory record without its comment, in bytes.
    static let endSize = 22
    /// The ZIP64 end of central directory record (version 1), in bytes.
    static let zip64EndSize = 56
    /// The ZIP64 end of central directory locator, in bytes.
    static let zip64LocatorSize = 20
    /// The longest comment an end record can have, in bytes.
    static let maxCommentLength = 0xFFFF

    /// The ZIP64 extended information extra field's tag.
    static let zip64ExtraTag: UInt16 = 0x0001
    /// A 32-bit field holding this means "see the ZIP64 record".
    static let marker32: UInt32 = 0xFFFF_FFFF
    /// A 16-bit entry count holding this means "see the ZIP64 record".
    static let marker16: UInt16 = 0xFFFF

    /// "Version needed to extract" for plain stored entries (2.0) and for ZIP64 (4.5).
    static let versionPlain: UInt16 = 20
    static let versionZIP64: UInt16 = 45
    /// "Version made by": Unix (3) in the high byte, so that the external attributes hold a mode.
    static let madeByUnix: UInt16 = 3 << 8 | 45
    /// General purpose flag bits: 0 encrypted, 3 sizes in a data descriptor, 11 UTF-8 names.
    static let flagEncrypted: UInt16 = 1 << 0
    static let flagDataDescriptor: UInt16 = 1 << 3
}

extension [UInt8] {
    /// Appends `value` little-endian.
    mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// `withUnsafeBytes` for a body that throws ``ArchiveError`` (the standard library's form rethrows `any Error`).
    func withArchiveBytes<T>(_ body: (UnsafeRawBufferPointer) throws(ArchiveError) -> T) throws(ArchiveError) -> T {
        try withUnsafeBytes { bytes in Result { () throws(ArchiveError) in try body(bytes) } }.get()
    }
}

extension UnsafeRawBufferPointer {
    /// The little-endian `T` at byte `offset`. - Precondition: the bytes are within the buffer.
    func readLE<T: FixedWidthInteger>(_ offset: Int, as: T.Type = T.self) -> T {
        precondition(offset >= 0 && offset + MemoryLayout<T>.size <= count, "ZIP field read past its record")
        return T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}
