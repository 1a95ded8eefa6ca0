/// Builds a minimal EXIF block (TIFF header + IFD0) with a few tags and, optionally, an orientation.
enum Exif {
    static func block(orientation: Int?, bigEndian: Bool = false) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        // (tag, type, count, value) entries: ImageWidth (LONG), XResolution-like SHORT, then Orientation.
        var entries: [(Int, Int, Int, [UInt8])] = [(0x0100, 4, 1, u32(640)), (0x0128, 3, 1, u16(2) + [0, 0])]
        if let orientation { entries.append((0x0112, 3, 1, u16(orientation) + [0, 0])) }
        entries.append((0x0131, 2, 4, Array("abc\0".utf8)))
        var bytes: [UInt8] = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(8)
        bytes += u16(entries.count)
        for (tag, type, count, value) in entries { bytes += u16(tag) + u16(type) + u32(count) + value }
        bytes += u32(0)
        return bytes
    }
}
