import ImageCodecs
import Testing

/// ``TIFFPyramid/micronsPerPixel(resolutionUnit:x:y:)``: a pixel's physical size from TIFF resolution tags, and the
/// screen defaults (72 and 96 pixels per inch) that say nothing of the thing pictured.
@Suite struct TIFFResolutionTests {
    @Test func centimetresAndInchesGiveMicrons() throws {
        let slide = try #require(TIFFPyramid.micronsPerPixel(resolutionUnit: 3, x: 40_000, y: 20_000))
        #expect(slide.x == 0.25 && slide.y == 0.5)
        let scan = try #require(TIFFPyramid.micronsPerPixel(resolutionUnit: 2, x: 300, y: 300))
        #expect(abs(scan.x - 84.666_666) < 1e-5)
    }

    /// (unit, x, y) that give no pixel size.
    static let none: [(Int, Double, Double)] = [
        (2, 72, 72), (2, 96, 96),
        // libvips writes a 72- or 96-dpi photo's resolution in pixels per centimetre.
        (3, 72 / 2.54, 72 / 2.54), (3, 28.3465, 28.3465), (3, 96 / 2.54, 96 / 2.54),
        // No unit, or nothing positive.
        (1, 300, 300), (2, 0, 300), (3, -5, -5), (3, Double.infinity, 1),
    ]

    @Test(arguments: Self.none)
    func screenDefaultsAndNonsenseGiveNone(unit: Int, x: Double, y: Double) {
        #expect(TIFFPyramid.micronsPerPixel(resolutionUnit: unit, x: x, y: y) == nil)
    }

    @Test func aDefaultOnOneAxisOnlyIsAMeasurement() throws {
        let odd = try #require(TIFFPyramid.micronsPerPixel(resolutionUnit: 2, x: 72, y: 144))
        #expect(abs(odd.y - 25_400.0 / 144) < 1e-9)
    }
}
