/// The pyramid computed the obvious way, whole images in memory, to check the streaming builder against.
///
/// Written independently of Slicing and TileGeometry: level sizes by repeated halving, each output pixel from the
/// input pixels that exist in its 2×2 block, one pixel at a time, rounding with floating point.
enum ReferencePyramid {
    /// All levels, index 0 being 1×1 and the last the image itself.
    static func levels(of image: TestImage) -> [TestImage] {
        var levels = [image]
        while levels[0].width > 1 || levels[0].height > 1 {
            levels.insert(shrink(levels[0]), at: 0)
        }
        return levels
    }

    /// One 2×2 box-filter step with the documented rounding and alpha rules.
    static func shrink(_ image: TestImage) -> TestImage {
        let width = (image.width + 1) / 2
        let height = (image.height + 1) / 2
        let channels = image.channels
        var out = [UInt8](repeating: 0, count: width * height * channels)
        // Per-channel sums (0..<4) and alpha-weighted sums (4..<8), reset for every output pixel.
        let sums = UnsafeMutablePointer<Double>.allocate(capacity: 8)
        defer { sums.deallocate() }
        image.pixels.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                for y in 0..<height {
                    for x in 0..<width {
                        average(input, image, x: x, y: y, sums: sums, into: output.baseAddress! + (y * width + x) * channels)
                    }
                }
            }
        }
        return TestImage(width: width, height: height, channels: channels, pixels: out)
    }

    /// Output pixel (`x`, `y`): the mean of the pixels of block (2x…2x+1, 2y…2y+1) that exist — plain, or
    /// alpha-weighted colour with mean alpha (plain colour when all alphas are 0).
    static func average(
        _ input: UnsafeBufferPointer<UInt8>, _ image: TestImage, x: Int, y: Int, sums: UnsafeMutablePointer<Double>,
        into out: UnsafeMutablePointer<UInt8>
    ) {
        let channels = image.channels
        let alpha = channels == 2 || channels == 4 ? channels - 1 : -1
        sums.update(repeating: 0, count: 8)
        var count = 0.0
        for sy in 2 * y...2 * y + 1 where sy < image.height {
            for sx in 2 * x...2 * x + 1 where sx < image.width {
                let p = (sy * image.width + sx) * channels
                let a = alpha >= 0 ? Double(input[p + alpha]) : 0
                count += 1
                for c in 0..<channels {
                    sums[c] += Double(input[p + c])
                    sums[4 + c] += Double(input[p + c]) * a
                }
            }
        }
        func rounded(_ value: Double) -> UInt8 { UInt8(value.rounded(.toNearestOrAwayFromZero)) }
        for c in 0..<channels { out[c] = rounded(sums[c] / count) }
        if alpha >= 0 && sums[alpha] > 0 {
            for c in 0..<alpha { out[c] = rounded(sums[4 + c] / sums[alpha]) }
        }
    }

    /// The pixels the DZI tile (`column`, `row`) of a level holds: its `tileSize` square plus `overlap` on every
    /// side that has a neighbour, clipped to the level.
    static func tile(of level: TestImage, column: Int, row: Int, tileSize: Int, overlap: Int) -> PAMImage {
        let x0 = max(column * tileSize - overlap, 0)
        let y0 = max(row * tileSize - overlap, 0)
        let x1 = min((column + 1) * tileSize + overlap, level.width)
        let y1 = min((row + 1) * tileSize + overlap, level.height)
        let pixels = level.crop(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        return PAMImage(width: x1 - x0, height: y1 - y0, channels: level.channels, pixels: pixels)
    }
}
