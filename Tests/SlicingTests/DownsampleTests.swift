import Slicing
import Testing

/// The shrink kernel against the naive reference, row by row: every width from 1 to 70 (and a few wider) covers the
/// SIMD steps, their scalar tails and the odd last column, for every channel count.
@Suite struct DownsampleTests {
    @Test(arguments: 1...4)
    func rowPairsMatchReference(channels: Int) {
        for width in Array(1...70) + [127, 128, 255, 1001] {
            let image = TestImage.random(width: width, height: 2, channels: channels, seed: UInt64(width * 10 + channels))
            let expected = ReferencePyramid.shrink(image).pixels
            var out = [UInt8](repeating: 0xAA, count: expected.count)
            image.pixels.withUnsafeBufferPointer { rows in
                let top = rows.baseAddress!
                Downsample.shrinkRow(top, top + width * channels, width: width, channels: channels, into: &out)
            }
            #expect(out == expected, "width \(width), \(channels) channels")
        }
    }

    @Test(arguments: 1...4)
    func lastOddRowMatchesReference(channels: Int) {
        for width in 1...40 {
            let image = TestImage.random(width: width, height: 1, channels: channels, seed: UInt64(width * 100 + channels))
            let expected = ReferencePyramid.shrink(image).pixels
            var out = [UInt8](repeating: 0xAA, count: expected.count)
            image.pixels.withUnsafeBufferPointer { row in
                Downsample.shrinkRow(row.baseAddress!, nil, width: width, channels: channels, into: &out)
            }
            #expect(out == expected, "width \(width), \(channels) channels")
        }
    }

    @Test func roundsHalfUp() {
        // Gray sums 1, 2, 3, 6 over four samples: 0.25 → 0, 0.5 → 1, 0.75 → 1, 1.5 → 2; two samples 1 + 2: 1.5 → 2.
        let top: [UInt8] = [1, 0, 1, 1, 1, 1, 2, 2]
        let bottom: [UInt8] = [0, 0, 0, 0, 1, 0, 1, 1]
        var out = [UInt8](repeating: 0, count: 4)
        Downsample.shrinkRow(top, bottom, width: 8, channels: 1, into: &out)
        #expect(out == [0, 1, 1, 2])
        var single = [UInt8](repeating: 0, count: 1)
        Downsample.shrinkRow([1, 2], nil, width: 2, channels: 1, into: &single)
        #expect(single == [2])
    }

    @Test func transparentBlackDoesNotDarkenOpaqueWhite() {
        var rgba = [UInt8](repeating: 0, count: 4)
        Downsample.shrinkRow([0, 0, 0, 0, 255, 255, 255, 255], nil, width: 2, channels: 4, into: &rgba)
        #expect(rgba == [255, 255, 255, 128])

        var block = [UInt8](repeating: 0, count: 4)
        Downsample.shrinkRow([0, 0, 0, 0, 255, 255, 255, 255], [0, 0, 0, 0, 0, 0, 0, 0], width: 2, channels: 4, into: &block)
        #expect(block == [255, 255, 255, 64])

        var grayAlpha = [UInt8](repeating: 0, count: 2)
        Downsample.shrinkRow([0, 0, 255, 255], [0, 0, 255, 255], width: 2, channels: 2, into: &grayAlpha)
        #expect(grayAlpha == [255, 128])
    }

    @Test func weightsByAlphaAndKeepsColourWhereAllTransparent() {
        // Colour 100 at alpha 200 and 200 at alpha 50: (100·200 + 200·50) / 250 = 120; alpha (200 + 50) / 2 = 125.
        var weighted = [UInt8](repeating: 0, count: 4)
        Downsample.shrinkRow([100, 100, 100, 200, 200, 200, 200, 50], nil, width: 2, channels: 4, into: &weighted)
        #expect(weighted == [120, 120, 120, 125])

        // Σa = 0: colour is the plain mean, alpha 0.
        var clear = [UInt8](repeating: 0, count: 4)
        Downsample.shrinkRow([10, 20, 30, 0, 20, 40, 61, 0], [10, 20, 30, 0, 20, 40, 60, 0], width: 2, channels: 4, into: &clear)
        #expect(clear == [15, 30, 45, 0])
    }

    @Test func wideRowsTakeTheWeightedPathInsideVectorSteps() {
        // 40 opaque white pixels with one transparent black in the middle of a SIMD step.
        var top = [UInt8](repeating: 255, count: 40 * 4)
        top[20 * 4..<21 * 4] = [0, 0, 0, 0]
        let bottom = [UInt8](repeating: 255, count: 40 * 4)
        var out = [UInt8](repeating: 0, count: 20 * 4)
        Downsample.shrinkRow(top, bottom, width: 40, channels: 4, into: &out)
        #expect(out[10 * 4..<11 * 4] == [255, 255, 255, 191])
        #expect(out.enumerated().allSatisfy { $0.offset / 4 == 10 || $0.element == 255 })
    }
}
