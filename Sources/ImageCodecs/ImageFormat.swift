/// A container format Tiler can decode, recognised by its magic bytes (never by file extension).
public enum ImageFormat: String, Sendable, CaseIterable {
    /// Portable Network Graphics.
    case png
    /// JPEG (JFIF / Exif / Adobe).
    case jpeg

    /// The eight-byte PNG signature.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// SOI followed by the first byte of the next marker.
    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]

    /// The format whose complete signature begins `prefix`, or nil.
    ///
    /// Needs 8 bytes to recognise PNG and 3 for JPEG. O(1).
    public static func sniff(_ prefix: some Collection<UInt8>) -> ImageFormat? {
        if prefix.starts(with: pngSignature) { return .png }
        if prefix.starts(with: jpegSignature) { return .jpeg }
        return nil
    }

    /// The format whose signature `prefix` begins but is too short to complete (a truncated header).
    static func partialMatch(_ prefix: some Collection<UInt8>) -> ImageFormat? {
        guard !prefix.isEmpty else { return nil }
        if prefix.count < pngSignature.count, pngSignature.starts(with: prefix) { return .png }
        if prefix.count < jpegSignature.count, jpegSignature.starts(with: prefix) { return .jpeg }
        return nil
    }

    /// The signature's length in bytes.
    var signatureLength: Int { self == .png ? ImageFormat.pngSignature.count : ImageFormat.jpegSignature.count }

    /// The format's name in messages.
    var displayName: String { self == .png ? "PNG" : "JPEG" }
}
