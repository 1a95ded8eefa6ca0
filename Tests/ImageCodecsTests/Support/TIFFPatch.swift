/// Rewrites entries of a little-endian classic TIFF's first IFD in place: how the tests make damaged and
/// unsupported files libtiff itself would not write.
enum TIFFPatch {
    /// Sets the value of tag `tag` (SHORT or LONG, count 1; a SHORT becomes a LONG for values over 65535) in IFD0;
    /// returns false when the tag is absent.
    @discardableResult
    static func set(_ bytes: inout [UInt8], tag: Int, to value: UInt32) -> Bool {
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard bytes.count >= 8, bytes[0] == 0x49, u16(2) == 42 else { return false }
        let ifd = u32(4)
        for index in 0..<u16(ifd) {
            let entry = ifd + 2 + index * 12
            guard u16(entry) == tag else { continue }
            if u16(entry + 2) == 3, value > 0xFFFF {
                bytes[entry + 2] = 4  // SHORT becomes LONG to hold the value
            }
            if u16(entry + 2) == 3 {
                bytes[entry + 8] = UInt8(value & 0xFF)
                bytes[entry + 9] = UInt8(value >> 8 & 0xFF)
            } else {
                for k in 0..<4 { bytes[entry + 8 + k] = UInt8(value >> (8 * UInt32(k)) & 0xFF) }
            }
            return true
        }
        return false
    }
}
