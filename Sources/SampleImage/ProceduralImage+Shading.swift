extension ProceduralImage {
    /// Fills `row` with the terrain height of image row `y` (roughly −1.5 ... 1.5).
    func heightRow(_ y: Int, into row: inout [Float], scratch: inout [Float]) {
        for x in 0..<row.count { row[x] = 0 }
        for octave in octaves {
            if scratch.count < octave.latticeWidth { scratch = [Float](repeating: 0, count: octave.latticeWidth) }
            octave.accumulate(row: y, into: &row, lattice: &scratch)
        }
    }

    /// Colours one row from its heights and the heights of the row above: palette by height, lit from the
    /// north-west by the local slope, plus deterministic grain.
    func shadeRow(_ y: Int, heights: [Float], above: [Float], into out: UnsafeMutablePointer<UInt8>) {
        heights.withUnsafeBufferPointer { h in
            above.withUnsafeBufferPointer { a in
                palette.withUnsafeBufferPointer { p in
                    var grain = UInt32(truncatingIfNeeded: seed &* 0x2545_F491_4F6C_DD1D) ^ UInt32(truncatingIfNeeded: y &* 0x9E37_79B1)
                    for x in 0..<h.count {
                        let level = h[x]
                        let dx = level - h[x > 0 ? x - 1 : x]
                        let dy = level - a[x]
                        // Slopes are tiny per pixel at full size; scale so that relief reads at every zoom.
                        let index = Int(max(0, min(255, (level * 0.42 + 0.5) * 255)))
                        // The sea is calm: below the shore the relief shows only faintly.
                        let gain = index < seaLevel ? shadeGain * 0.12 : shadeGain
                        let light = max(0.35, min(1.45, 1 + (dx + dy) * gain))
                        grain ^= grain << 13
                        grain ^= grain >> 17
                        grain ^= grain << 5
                        let noise = Float(Int32(grain & 15) - 8)
                        let base = index * 3
                        for c in 0..<3 {
                            let v = Float(p[base + c]) * light + noise
                            out[x * 3 + c] = UInt8(max(0, min(255, v)))
                        }
                    }
                }
            }
        }
    }

    /// How strongly slope darkens or lightens: larger for larger images, whose per-pixel slopes are smaller.
    var shadeGain: Float { Float(max(width, height)) / 12 }

    /// The palette index of the shore.
    var seaLevel: Int { 116 }

    /// A 256-entry RGB palette from deep sea (low) to snow (high).
    static func makePalette() -> [UInt8] {
        let stops: [(Float, Float, Float, Float)] = [
            (0.00, 12, 34, 78), (0.30, 28, 82, 140), (0.42, 70, 150, 180), (0.46, 214, 200, 150),
            (0.50, 120, 150, 70), (0.62, 52, 104, 44), (0.74, 96, 84, 60), (0.86, 140, 128, 118), (0.94, 236, 236, 240),
            (1.00, 255, 255, 255),
        ]
        var out = [UInt8](repeating: 0, count: 256 * 3)
        for i in 0..<256 {
            let t = Float(i) / 255
            var k = 0
            while k + 2 < stops.count && stops[k + 1].0 < t { k += 1 }
            let (t0, r0, g0, b0) = stops[k]
            let (t1, r1, g1, b1) = stops[k + 1]
            let f = max(0, min(1, (t - t0) / (t1 - t0)))
            out[i * 3] = UInt8(r0 + (r1 - r0) * f)
            out[i * 3 + 1] = UInt8(g0 + (g1 - g0) * f)
            out[i * 3 + 2] = UInt8(b0 + (b1 - b0) * f)
        }
        return out
    }
}
