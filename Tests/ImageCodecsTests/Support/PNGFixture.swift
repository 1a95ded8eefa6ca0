import CPNG
import TestSupport

/// One PNG variant: a colour type and bit depth the PNG specification allows, with or without tRNS and Adam7.
struct PNGFixture: Sendable, CustomStringConvertible {
    var colorType: Int32
    var bitDepth: Int
    var trns: Bool
    var interlaced: Bool
    var width = 13
    var height = 11

    var description: String {
        let names: [Int32: String] = [0: "gray", 2: "rgb", 3: "palette", 4: "gray+alpha", 6: "rgba"]
        return "\(names[colorType]!) \(bitDepth)-bit\(trns ? " +tRNS" : "")\(interlaced ? " Adam7" : "")"
    }

    /// Every (colour type, bit depth) the PNG specification allows, tRNS where allowed, each plain and Adam7.
    static let all: [PNGFixture] = {
        let depths: [(Int32, [Int])] = [(0, [1, 2, 4, 8, 16]), (2, [8, 16]), (3, [1, 2, 4, 8]), (4, [8, 16]), (6, [8, 16])]
        var fixtures: [PNGFixture] = []
        for interlaced in [false, true] {
            for (colorType, bitDepths) in depths {
                for depth in bitDepths {
                    fixtures.append(PNGFixture(colorType: colorType, bitDepth: depth, trns: false, interlaced: interlaced))
                    if colorType == 0 || colorType == 2 || colorType == 3 {
                        fixtures.append(PNGFixture(colorType: colorType, bitDepth: depth, trns: true, interlaced: interlaced))
                    }
                }
            }
        }
        return fixtures
    }()

    /// Samples per source pixel.
    var samples: Int { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colorType]! }
    var maxSample: Int { (1 << bitDepth) - 1 }
    var paletteEntries: Int { min(1 << bitDepth, 200) }
    /// The colour the tRNS chunk makes transparent (gray or RGB), at source depth.
    var transparentColor: [Int] { (0..<samples).map { [3, 1, 2][$0 % 3] * maxSample / 4 } }

    /// Source samples at source depth: seeded noise, with every fifth pixel set to the tRNS colour.
    func sourceSamples() -> [[Int]] {
        var random = SplitMix64(seed: UInt64(colorType * 100 + Int32(bitDepth)))
        let limit = colorType == 3 ? paletteEntries - 1 : maxSample
        return (0..<width * height).map { index in
            if trns, colorType != 3, index % 5 == 0 { return transparentColor }
            return (0..<samples).map { _ in Int.random(in: 0...limit, using: &random) }
        }
    }

    /// Palette entry `i` as RGB, and its alpha (entries past the tRNS count are opaque).
    func paletteColor(_ i: Int) -> [UInt8] { [UInt8(i * 37 % 256), UInt8(255 - i), UInt8(i * 11 % 256)] }
    func paletteAlpha(_ i: Int) -> UInt8 { trns && i < paletteEntries / 2 ? UInt8(i * 255 / max(1, paletteEntries / 2 - 1)) : 255 }
}
