/// Finds the orientation tag (0x0112) in IFD0 of an EXIF block (a TIFF header onwards).
enum ExifOrientation {
    /// The orientation 1–8, or nil when the block is malformed, has no tag, or holds another value.
    /// Every offset is bounds-checked; O(entries in IFD0).
    static func parse(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            let (a, b) = (Int(bytes[at]), Int(bytes[at + 1]))
            return littleEndian ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let low = u16(littleEndian ? at : at + 2), let high = u16(littleEndian ? at + 2 : at) else { return nil }
            return high << 16 | low
        }
        guard u16(2) == 42, let ifd = u32(4), let entries = u16(ifd) else { return nil }
        for index in 0..<entries {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT (type 3), count 1: the value sits in the first two bytes of the value field.
            guard u16(entry + 2) == 3, u32(entry + 4) == 1, let value = u16(entry + 8), (1...8).contains(value) else { return nil }
            return value
        }
        return nil
    }
}
