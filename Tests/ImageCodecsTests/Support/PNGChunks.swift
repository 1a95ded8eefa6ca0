/// Builds and edits PNG files chunk by chunk, for damaged and hand-made inputs.
enum PNGChunks {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    private static let table: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    /// CRC-32 as PNG defines it (ISO 3309).
    static func crc(_ bytes: some Sequence<UInt8>) -> UInt32 {
        ~bytes.reduce(~UInt32(0)) { c, byte in table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
    }

    static func u32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }

    /// A chunk: length, type, data, CRC over type and data.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return u32(UInt32(data.count)) + body + u32(crc(body))
    }

    /// An IHDR chunk.
    static func ihdr(width: UInt32, height: UInt32, bitDepth: UInt8 = 8, colorType: UInt8 = 2, interlace: UInt8 = 0) -> [UInt8] {
        chunk("IHDR", u32(width) + u32(height) + [bitDepth, colorType, 0, 0, interlace])
    }

    /// A file with the given IHDR, a tiny (not matching) IDAT and IEND: enough for a header read.
    static func headerOnlyFile(width: UInt32, height: UInt32) -> [UInt8] {
        signature + ihdr(width: width, height: height) + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
            + chunk("IEND", [])
    }

    /// (type, offset of the length field, data length) for each chunk in `file`.
    static func chunks(of file: [UInt8]) -> [(type: String, offset: Int, length: Int)] {
        var result: [(String, Int, Int)] = []
        var offset = 8
        while offset + 8 <= file.count {
            let length = file[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: file[offset + 4..<offset + 8], as: UTF8.self)
            result.append((type, offset, length))
            offset += 12 + length
        }
        return result
    }
}
