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

    @Test("A batch spread over the cores converts exactly as row by row", arguments: [1, 2])
    func batchMatchesRows(bytesPerSample: Int) throws {
        let transform = try ColourTransform(
            iccProfile: try ColourFixtures.profile("ProPhotoRGB"), input: ColourInput(space: .rgb, bytesPerSample: bytesPerSample))
        let width = 3_001
        let rows = 67
        let sourceStride = width * 3 * bytesPerSample + 5
        let (eight, _) = Self.pixels(rows * sourceStride, channels: 1, seed: 11)
        var batch = [UInt8](repeating: 0, count: rows * width * 3)
        var single = batch
        eight.withUnsafeBytes { source in
            batch.withUnsafeMutableBufferPointer { out in
                transform.apply(rows: rows, from: source.baseAddress!, stride: sourceStride, to: out.baseAddress!, stride: width * 3, pixels: width)
            }
            single.withUnsafeMutableBufferPointer { out in
                for row in 0..<rows {
                    transform.apply(source.baseAddress! + row * sourceStride, to: out.baseAddress! + row * width * 3, pixels: width)
                }
            }
        }
        #expect(rows * width > ColourTransform.pixelsPerThread, "big enough to be spread")
        #expect(batch == single)
        #expect(Set(batch).count > 200, "converted, not left blank")
    }
}
