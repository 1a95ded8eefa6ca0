import CJPEG

/// One JPEG variant written by libjpeg: flat 16×16 colour patches (4 × 2 of them, aligned to MCUs),
/// so every variant decodes close to known colours.
struct JPEGFixture: Sendable, CustomStringConvertible {
    var name: String
    var colorSpace: Int32
    var hSamp: Int32 = 1
    var vSamp: Int32 = 1
    var progressive = false
    var adobeMarker: Int32 = -1
    /// What the header must report.
    var colorType: String
    var subsampling: String?

    var description: String { name }

    static let width = 64
    static let height = 32

    static let all: [JPEGFixture] = [
        JPEGFixture(name: "baseline 4:4:4", colorSpace: TILER_JPEG_CS_YCBCR, colorType: "ycbcr", subsampling: "4:4:4"),
        JPEGFixture(name: "baseline 4:2:2", colorSpace: TILER_JPEG_CS_YCBCR, hSamp: 2, colorType: "ycbcr", subsampling: "4:2:2"),
        JPEGFixture(name: "baseline 4:2:0", colorSpace: TILER_JPEG_CS_YCBCR, hSamp: 2, vSamp: 2, colorType: "ycbcr", subsampling: "4:2:0"),
        JPEGFixture(
            name: "progressive 4:4:4", colorSpace: TILER_JPEG_CS_YCBCR, progressive: true, colorType: "ycbcr", subsampling: "4:4:4"),
        JPEGFixture(
            name: "progressive 4:2:2", colorSpace: TILER_JPEG_CS_YCBCR, hSamp: 2, progressive: true, colorType: "ycbcr",
            subsampling: "4:2:2"),
        JPEGFixture(
            name: "progressive 4:2:0", colorSpace: TILER_JPEG_CS_YCBCR, hSamp: 2, vSamp: 2, progressive: true, colorType: "ycbcr",
            subsampling: "4:2:0"),
        JPEGFixture(name: "grayscale", colorSpace: TILER_JPEG_CS_GRAY, colorType: "gray", subsampling: nil),
        JPEGFixture(name: "progressive grayscale", colorSpace: TILER_JPEG_CS_GRAY, progressive: true, colorType: "gray", subsampling: nil),
        JPEGFixture(name: "RGB (no colour transform)", colorSpace: TILER_JPEG_CS_RGB, colorType: "rgb", subsampling: "4:4:4"),
        JPEGFixture(name: "CMYK without Adobe marker", colorSpace: TILER_JPEG_CS_CMYK, adobeMarker: 0, colorType: "cmyk", subsampling: "4:4:4"),
        JPEGFixture(name: "Adobe inverted CMYK", colorSpace: TILER_JPEG_CS_CMYK, adobeMarker: 1, colorType: "cmyk", subsampling: "4:4:4"),
        JPEGFixture(name: "YCCK", colorSpace: TILER_JPEG_CS_YCCK, hSamp: 2, vSamp: 2, colorType: "ycck", subsampling: "4:2:0"),
        JPEGFixture(
            name: "progressive YCCK", colorSpace: TILER_JPEG_CS_YCCK, progressive: true, colorType: "ycck", subsampling: "4:4:4"),
    ]

    /// The patch colours as RGB (for colour variants).
    static let rgbPatches: [[UInt8]] = [
        [200, 30, 40], [30, 180, 60], [40, 60, 210], [230, 220, 50], [20, 20, 20], [240, 240, 240], [128, 128, 128], [180, 90, 200],
    ]
    /// The patch colours as CMYK ink 0–255 (for CMYK and YCCK variants).
    static let cmykPatches: [[UInt8]] = [
        [0, 200, 180, 20], [200, 0, 180, 40], [180, 160, 0, 10], [0, 0, 200, 0], [0, 0, 0, 230], [10, 10, 10, 0], [60, 60, 60, 60],
        [50, 150, 0, 30],
    ]

    var isCMYK: Bool { colorSpace == TILER_JPEG_CS_CMYK || colorSpace == TILER_JPEG_CS_YCCK }
    var isGray: Bool { colorSpace == TILER_JPEG_CS_GRAY }
    /// Adobe-style files store 255 − ink.
    var storesInverted: Bool { colorSpace == TILER_JPEG_CS_YCCK || adobeMarker == 1 }

    /// The samples libjpeg is given, per patch.
    func storedPatch(_ index: Int) -> [UInt8] {
        if isGray { return [Self.rgbPatches[index][0]] }
        if isCMYK { return Self.cmykPatches[index].map { storesInverted ? 255 - $0 : $0 } }
        return Self.rgbPatches[index]
    }

    /// The colour a decoder must deliver for a patch: R = 255·(1−C)(1−K) etc. for CMYK.
    func expectedPatch(_ index: Int) -> [UInt8] {
        if isGray { return [Self.rgbPatches[index][0]] }
        guard isCMYK else { return Self.rgbPatches[index] }
        let ink = Self.cmykPatches[index].map(Double.init)
        return (0..<3).map { UInt8(((255 - ink[$0]) * (255 - ink[3]) / 255).rounded()) }
    }

    /// Which patch pixel (x, y) lies in.
    static func patch(x: Int, y: Int) -> Int { (y / 16) * 4 + x / 16 }
}
