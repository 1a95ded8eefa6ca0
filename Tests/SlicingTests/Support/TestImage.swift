import TestSupport

/// An image held whole in memory, for the tests' sources and reference pyramids.
struct TestImage: Equatable {
    var width: Int
    var height: Int
    var channels: Int
    var pixels: [UInt8]

    /// A seeded pseudo-random image. Colour samples are uniform; alpha (channels 2 and 4) comes in 16×16 regions
    /// that are opaque, transparent, random or a mix, so both the equal-alpha and the weighted paths are exercised.
    static func random(width: Int, height: Int, channels: Int, seed: UInt64) -> TestImage {
        var generator = SplitMix64(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        pixels.withUnsafeMutableBytes { bytes in
            let words = bytes.count / 8
            for index in 0..<words { bytes.storeBytes(of: generator.next(), toByteOffset: index * 8, as: UInt64.self) }
            for index in words * 8..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: generator.next()) }
        }
        if channels % 2 == 0 {
            setAlpha(&pixels, width: width, height: height, channels: channels, generator: &generator)
        }
        return TestImage(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// Alpha in 16-pixel runs, cycling per run and row band: opaque, transparent, random, or a mix of 0, 255, 128
    /// and random.
    private static func setAlpha(_ pixels: inout [UInt8], width: Int, height: Int, channels: Int, generator: inout SplitMix64) {
        pixels.withUnsafeMutableBufferPointer { samples in
            for y in 0..<height {
                for x in 0..<width {
                    let index = (y * width + x) * channels + channels - 1
                    switch (x / 16 + 3 * (y / 16)) % 4 {
                    case 0: samples[index] = 255
                    case 1: samples[index] = 0
                    case 2: break
                    default:
                        let choice = generator.next() % 4
                        samples[index] = choice == 0 ? 0 : choice == 1 ? 255 : choice == 2 ? 128 : samples[index]
                    }
                }
            }
        }
    }

    /// The samples of pixel (`x`, `y`).
    func pixel(_ x: Int, _ y: Int) -> ArraySlice<UInt8> {
        let start = (y * width + x) * channels
        return pixels[start..<start + channels]
    }

    /// The pixels of a rectangle, rows contiguous.
    func crop(x: Int, y: Int, width cropWidth: Int, height cropHeight: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(cropWidth * cropHeight * channels)
        for row in y..<y + cropHeight {
            let start = (row * width + x) * channels
            out.append(contentsOf: pixels[start..<start + cropWidth * channels])
        }
        return out
    }
}
