/// A container format Tiler can decode, recognised by its magic bytes (never by file extension).
public enum ImageFormat: String, Sendable, CaseIterable {
    /// Portable Network Graphics.
    case png
    /// JPEG (JFIF / Exif / Adobe).
    case jpeg
    /// TIFF or BigTIFF, either byte order.
    case tiff
    /// WebP (RIFF container), lossy or lossless: decoded whole (at most 16383² pixels), e.g. a pyramid's stored tiles.
    case webp
    /// A whole-slide image OpenSlide reads (Hamamatsu, MIRAX, Leica, Philips, Ventana, Sakura, …): recognised by
    /// OpenSlide, never by ``sniff(_:)``.
    case slide

    /// The eight-byte PNG signature.
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    /// SOI followed by the first byte of the next marker.
    static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]
    /// Classic TIFF (`II*\0`, `MM\0*`) and BigTIFF (version 43) in both byte orders.
    static let tiffSignatures: [[UInt8]] = [
        [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B],
    ]

    /// The format whose complete signature begins `prefix`, or nil.
    ///
    /// Needs 12 bytes to recognise WebP, 8 for PNG, 4 for TIFF and 3 for JPEG. O(1).
    public static func sniff(_ prefix: some Collection<UInt8>) -> ImageFormat? {
        if prefix.starts(with: pngSignature) { return .png }
        if prefix.starts(with: jpegSignature) { return .jpeg }
        if tiffSignatures.contains(where: { prefix.starts(with: $0) }) { return .tiff }
        if prefix.count >= 12, prefix.starts(with: Array("RIFF".utf8)), prefix.dropFirst(8).prefix(4).elementsEqual("WEBP".utf8) {
            return .webp
        }
        return nil
    }

    /// The format whose signature `prefix` begins but is too short to complete (a truncated header).
    static func partialMatch(_ prefix: some Collection<UInt8>) -> ImageFormat? {
        guard !prefix.isEmpty else { return nil }
        if prefix.count < pngSignature.count, pngSignature.starts(with: prefix) { return .png }
        if prefix.count < jpegSignature.count, jpegSignature.starts(with: prefix) { return .jpeg }
        // One byte ("I" or "M") could be anything; two matching order bytes and more are a TIFF's start.
        if prefix.count >= 2, prefix.count < 4, tiffSignatures.contains(where: { $0.starts(with: prefix) }) { return .tiff }
        return nil
    }

    /// The signature's length in bytes.
    var signatureLength: Int {
        switch self {
        case .png: ImageFormat.pngSignature.count
        case .jpeg: ImageFormat.jpegSignature.count
        case .tiff: 4
        case .webp: 12
        case .slide: 0
        }
    }

    /// The format's name in messages.
    public var displayName: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .tiff: "TIFF"
        case .webp: "WebP"
        case .slide: "whole-slide image"
        }
    }
}
