extension ImageFormat {
    /// Other formats' magic bytes, so "unsupported format" can say what the file is.
    private static let knownMagic: [(bytes: [UInt8], name: String)] = [
        ([0x47, 0x49, 0x46, 0x38], "a GIF image"),
        ([0x42, 0x4D], "a BMP image"),
        ([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20], "a JPEG 2000 image"),
        ([0xFF, 0x4F, 0xFF, 0x51], "a JPEG 2000 codestream"),
        ([0xFF, 0x0A], "a JPEG XL image"),
        ([0x38, 0x42, 0x50, 0x53], "a Photoshop document"),
        ([0x25, 0x50, 0x44, 0x46], "a PDF document"),
        ([0x50, 0x4B, 0x03, 0x04], "a ZIP archive"),
        ([0x1F, 0x8B], "gzip data"),
        ([0x8A, 0x4D, 0x4E, 0x47], "an MNG animation"),
    ]

    /// Says what bytes that are not PNG, JPEG or TIFF look like, e.g.
    /// `"a GIF image, not a PNG, JPEG, TIFF or WebP file"` or
    /// `"not a PNG, JPEG, TIFF or WebP file (starts with 68 65 6c 6c 6f \"hello\")"`.
    static func describeUnsupported(_ prefix: [UInt8]) -> String {
        if let known = knownMagic.first(where: { prefix.starts(with: $0.bytes) }) {
            return "\(known.name), not a PNG, JPEG, TIFF or WebP file"
        }
        if prefix.count >= 12, prefix[4..<8].elementsEqual("ftyp".utf8) {
            return "an ISO media file (HEIF/AVIF/MP4), not a PNG, JPEG, TIFF or WebP file"
        }
        let shown = prefix.prefix(8)
        let hex = shown.map { byte in
            let digits = String(byte, radix: 16)
            return byte < 16 ? "0" + digits : digits
        }
        let text = String(decoding: shown.map { (0x20..<0x7F).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
        return "not a PNG, JPEG, TIFF or WebP file (starts with \(hex.joined(separator: " ")) \"\(text)\")"
    }
}
