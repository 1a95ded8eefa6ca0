/// Reads and patches a little-endian classic TIFF's directories in memory: how the pyramid tests damage files in ways
/// no writer would (a tile offset past the end, a byte count of zero, an IFD loop).
struct TIFFBytes {
    var bytes: [UInt8]

    /// One directory entry: where it is, and its type, count and value (or value offset).
    struct Entry {
        var at: Int, tag: Int, type: Int, count: Int, value: Int
    }

    init(_ bytes: [UInt8]) {
        precondition(bytes.count >= 8 && bytes[0] == 0x49 && bytes[2] == 42, "a little-endian classic TIFF")
        self.bytes = bytes
    }

    func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
    func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }

    mutating func setU32(_ at: Int, _ value: UInt32) {
        for k in 0..<4 { bytes[at + k] = UInt8(value >> (8 * UInt32(k)) & 0xFF) }
    }

    /// The offsets of the IFDs of the main chain (at most 100).
    var chain: [Int] {
        var result: [Int] = []
        var next = u32(4)
        while next != 0, result.count < 100, !result.contains(next) {
            result.append(next)
            next = u32(next + 2 + u16(next) * 12)
        }
        return result
    }

    /// Where IFD `ifd`'s next-IFD offset is stored.
    func nextPointer(of ifd: Int) -> Int { ifd + 2 + u16(ifd) * 12 }

    /// Tag `tag` of the IFD at `ifd`.
    func entry(_ tag: Int, in ifd: Int) -> Entry? {
        for index in 0..<u16(ifd) {
            let at = ifd + 2 + index * 12
            if u16(at) == tag { return Entry(at: at, tag: tag, type: u16(at + 2), count: u32(at + 4), value: u32(at + 8)) }
        }
        return nil
    }

    /// Element `index` of a LONG array tag (TileOffsets, TileByteCounts) of the IFD at `ifd`.
    func long(_ tag: Int, _ index: Int, in ifd: Int) -> Int {
        let e = entry(tag, in: ifd)!
        precondition(e.type == 4)
        return e.count == 1 ? e.value : u32(e.value + 4 * index)
    }

    /// Sets element `index` of a LONG array tag of the IFD at `ifd`.
    mutating func setLong(_ tag: Int, _ index: Int, in ifd: Int, to value: UInt32) {
        let e = entry(tag, in: ifd)!
        precondition(e.type == 4)
        setU32(e.count == 1 ? e.at + 8 : e.value + 4 * index, value)
    }
}
