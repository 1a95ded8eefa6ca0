/// A classic little-endian TIFF's bytes, read and damaged where a reader looks — the first directory's offset, its
/// entries' values, its next-directory link — for the tests of TIFFs contained as damaged files are.
public struct ClassicTIFF {
    /// The file's bytes, as damaged so far.
    public var bytes: [UInt8]

    /// The TIFF `bytes`.
    ///
    /// - Precondition: `bytes` start with a classic little-endian TIFF header (`II*\0`).
    public init(_ bytes: [UInt8]) {
        precondition(bytes.starts(with: [0x49, 0x49, 42, 0]), "a classic little-endian TIFF")
        self.bytes = bytes
    }

    /// The offset of the first directory.
    public var firstDirectory: Int {
        get { Int(uint32(at: 4)) }
        set { setUInt32(UInt32(newValue), at: 4) }
    }

    /// Where the first directory's link to the next lies.
    public var nextLinkOffset: Int { firstDirectory + 2 + 12 * Int(uint16(at: firstDirectory)) }

    /// Where the values of tag `tag` of the first directory lie (4-byte LONG values), and how many there are.
    public func longValues(of tag: UInt16) -> (offset: Int, count: Int)? {
        let directory = firstDirectory
        for index in 0..<Int(uint16(at: directory)) {
            let entry = directory + 2 + 12 * index
            guard uint16(at: entry) == tag, uint16(at: entry + 2) == 4 else { continue }
            let count = Int(uint32(at: entry + 4))
            return (count == 1 ? entry + 8 : Int(uint32(at: entry + 8)), count)
        }
        return nil
    }

    /// The little-endian 16-bit value at `offset`.
    public func uint16(at offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }

    /// The little-endian 32-bit value at `offset`.
    public func uint32(at offset: Int) -> UInt32 { (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) } }

    /// Writes `value` little-endian at `offset`.
    public mutating func setUInt32(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
}
