import ImageCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// A photo-like RGB test image: smooth gradients, mid-frequency texture, a few hard-edged discs and
/// a little sensor-like noise, so codecs see the mix of flat and busy areas a real photograph has.
enum ProceduralImage {
    /// Builds a `size × size` RGB image. O(size²), a fraction of a second per 10⁸ pixels in release.
    static func make(size: Int) -> PixelBuffer {
        let waves = (0..<size).map { i -> (Double, Double, Double) in
            let t = Double(i) / Double(size)
            return (sin(t * 6.3), sin(t * 41 + 1), cos(t * 97))
        }
        let discs: [(x: Int, y: Int, r: Int, color: (Int, Int, Int))] = (0..<24).map { k in
            ((k * 7919) % size, (k * 104_729) % size, size / 40 + (k * 31) % (size / 20 + 1), (k * 40 % 256, k * 90 % 256, k * 150 % 256))
        }
        var bytes = [UInt8](repeating: 0, count: size * size * 3)
        var noise: UInt32 = 0x1234_5678
        bytes.withUnsafeMutableBufferPointer { out in
            for y in 0..<size {
                let (sy, my, hy) = waves[y]
                for x in 0..<size {
                    let (sx, mx, hx) = waves[x]
                    noise ^= noise << 13
                    noise ^= noise >> 17
                    noise ^= noise << 5
                    let grain = Double(Int(noise & 15) - 8)
                    var r = 120 + 70 * sx * sy + 25 * mx * my + 10 * hx * hy + grain
                    var g = 110 + 60 * sy - 30 * mx * sy + 12 * hy + grain
                    var b = 130 - 50 * sx + 20 * my * hx + grain
                    for disc in discs where abs(disc.x - x) < disc.r && abs(disc.y - y) < disc.r {
                        let (dx, dy) = (disc.x - x, disc.y - y)
                        if dx * dx + dy * dy < disc.r * disc.r {
                            (r, g, b) = (Double(disc.color.0) + grain, Double(disc.color.1) + grain, Double(disc.color.2) + grain)
                        }
                    }
                    let offset = (y * size + x) * 3
                    out[offset] = UInt8(max(0, min(255, r)))
                    out[offset + 1] = UInt8(max(0, min(255, g)))
                    out[offset + 2] = UInt8(max(0, min(255, b)))
                }
            }
        }
        return PixelBuffer(width: size, height: size, pixelFormat: .rgb, bytes: bytes)
    }
}
