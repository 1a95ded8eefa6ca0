import CLCMS
import Foundation
import ImageCodecs
import TestSupport
import Testing

/// The matrix tables for 8-bit matrix-shaper RGB sources against lcms's unoptimised floating-point transform (lcms's
/// own 16-bit path interpolates and was up to 22 levels off it in dark saturated channels), and batches spread over the cores
/// against row-by-row conversion.
@Suite struct ColourTransformTests {
    /// Every RGB profile colord ships (matrix-shaper and table-based alike).
    static let profiles = [
        "AdobeRGB1998", "AppleRGB", "BestRGB", "BetaRGB", "BruceRGB", "CIE-RGB", "ColorMatchRGB", "DonRGB4",
        "ECI-RGBv1", "ECI-RGBv2", "EktaSpacePS5", "NTSC-RGB", "PAL-RGB", "ProPhotoRGB", "Rec709", "SMPTE-C-RGB",
        "SwappedRedAndGreen", "WideGamutRGB",
    ]

    /// `count` random pixels of `channels` 8-bit samples, and the same pixels as 16-bit big-endian samples.
    static func pixels(_ count: Int, channels: Int, seed: UInt64) -> (eight: [UInt8], sixteen: [UInt8]) {
        var random = SplitMix64(seed: seed)
        let eight = (0..<count * channels).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return (eight, eight.flatMap { [$0, $0] })
    }

    @Test("8-bit RGB and RGBA agree with lcms in floating point within one level; alpha is copied", arguments: profiles)
    func matchesLCMS(name: String) throws {
        let profile = try ColourFixtures.profile(name)
        for alpha in [false, true] {
            let channels = alpha ? 4 : 3
            // An odd count: the vector kernel's eight-pixel rounds and the scalar tail both run.
            let count = 20_011
            let (eight, _) = Self.pixels(count, channels: channels, seed: 7)
            let fast = try ColourTransform(iccProfile: profile, input: ColourInput(space: .rgb, hasAlpha: alpha))
            var got = [UInt8](repeating: 0, count: count * channels)
            fast.apply(eight, to: &got, pixels: count)
            var rgb: [UInt8] = []
            for pixel in 0..<count { rgb += eight[pixel * channels..<pixel * channels + 3] }
            var precise = [UInt8](repeating: 0, count: count * 3)
            #expect(tiler_lcms_test_reference(profile, profile.count, rgb, &precise, count) == 0)
            var want: [UInt8] = []
            for pixel in 0..<count {
                want += precise[pixel * 3..<pixel * 3 + 3]
                if alpha { want.append(eight[pixel * 4 + 3]) }
            }
            let worst = zip(got, want).map { abs(Int($0) - Int($1)) }.max() ?? 0
            let first = got.indices.first { abs(Int(got[$0]) - Int(want[$0])) > 1 } ?? 0
            let at = first / channels * channels
            #expect(
                worst <= 1,
                "\(name) alpha \(alpha) via \(fast.method): \(worst) levels off, first \(eight[at..<at + channels]) → \(got[at..<at + channels]), lcms \(want[at..<at + channels])"
            )
            if alpha {
                #expect(stride(from: 3, to: got.count, by: 4).allSatisfy { got[$0] == eight[$0] }, "alpha copied")
            }
        }
    }

    @Test("The common wide-gamut profiles take the matrix tables")
    func commonProfilesTakeTheTables() throws {
        for name in ["AdobeRGB1998", "ProPhotoRGB", "WideGamutRGB", "ECI-RGBv2"] {
            let transform = try ColourTransform(iccProfile: try ColourFixtures.profile(name), input: ColourInput(space: .rgb))
            #expect(transform.method.hasPrefix("matrix tables"), "\(name): \(transform.method)")
        }
        let chunks = try ColourTransform(gamma: 0.55556, chromaticities: nil, input: ColourInput(space: .rgb, hasAlpha: true))
        #expect(chunks.method.hasPrefix("matrix tables"))
    }

    @Test("Rows converted one batch behind the decoder come out the same in any request sizes; a cut file fails after its good rows")
    func pipelinedRows() throws {
        let directory = try TemporaryDirectory()
        // 4096 × 3 bytes a row: a batch is 42 rows, so 300 rows take eight batches.
        let image = ColourFixtures.gradient(width: 4096, height: 300)
        let png = ColourFixtures.inserting(
            [ColourFixtures.iccpChunk(try ColourFixtures.profile("ProPhotoRGB"))], into: try PNGEncoder().encode(image))
        let path = try directory.write(png, to: "tagged.png")
        let whole = try ImageDecoder.decode(path: path).bytes
        #expect(ColourFixtures.maxDifference(whole, image.bytes) > 10, "converted")
        let rowBytes = 4096 * 3
        for sizes in [[1], [7, 1], [300], [41, 43, 1000]] {
            let reader = try ImageDecoder.open(path: path)
            var got = [UInt8](repeating: 0, count: whole.count)
            var turn = 0
            try got.withUnsafeMutableBufferPointer { out in
                while reader.rowsRead < 300 {
                    let asked = min(sizes[turn % sizes.count], 300 - reader.rowsRead)
                    let rows = try reader.readRows(into: out.baseAddress! + reader.rowsRead * rowBytes, rowCount: asked)
                    #expect(rows == asked, "a full answer until the end")
                    turn += 1
                }
            }
            #expect(try reader.readRows(into: &got, rowCount: 1) == 0)
            #expect(got == whole, "request sizes \(sizes)")
        }
        let cut = try directory.write(Array(png.prefix(png.count * 2 / 3)), to: "cut.png")
        let reader = try ImageDecoder.open(path: cut)
        var row = [UInt8](repeating: 0, count: rowBytes)
        var good = 0
        let error = #expect(throws: CodecError.self) {
            while try reader.readRows(into: &row, rowCount: 1) == 1 {
                #expect(row == Array(whole[good * rowBytes..<(good + 1) * rowBytes]), "row \(good) before the cut")
                good += 1
            }
        }
        #expect(good > 42, "the batches before the cut were delivered")
        #expect(error?.row != nil, "the failure names its row")
    }
}
