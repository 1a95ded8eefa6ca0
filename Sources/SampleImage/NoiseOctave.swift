/// One octave of 2-D value noise on a square lattice, with the horizontal lattice lookups precomputed for a
/// given image width so that evaluating a row costs a few multiply-adds per pixel.
struct NoiseOctave: Sendable {
    /// The lattice cell edge, in image pixels.
    let cell: Double
    /// The octave's weight in the sum.
    let amplitude: Float
    let seed: UInt64
    /// For each image column: the lattice column on its left.
    let latticeColumn: [Int32]
    /// For each image column: the smoothstep weight of the right lattice column, in 0 ... 1.
    let weight: [Float]
    /// The number of lattice columns a row needs.
    let latticeWidth: Int

    init(cell: Double, amplitude: Float, seed: UInt64, width: Int) {
        self.cell = cell
        self.amplitude = amplitude
        self.seed = seed
        var columns = [Int32](repeating: 0, count: width)
        var weights = [Float](repeating: 0, count: width)
        for x in 0..<width {
            let u = Double(x) / cell
            let i = u.rounded(.down)
            columns[x] = Int32(i)
            weights[x] = Float(NoiseOctave.smoothstep(u - i))
        }
        latticeColumn = columns
        weight = weights
        latticeWidth = Int(Double(max(width - 1, 0)) / cell) + 2
    }

    /// Adds this octave's values for image row `y` to `row`, using `lattice` as scratch space.
    func accumulate(row y: Int, into row: inout [Float], lattice: inout [Float]) {
        let v = Double(y) / cell
        let j = v.rounded(.down)
        let t = Float(NoiseOctave.smoothstep(v - j))
        let j0 = Int64(j)
        for i in 0..<latticeWidth {
            let a = value(Int64(i), j0)
            let b = value(Int64(i), j0 + 1)
            lattice[i] = (a + (b - a) * t) * amplitude
        }
        lattice.withUnsafeBufferPointer { l in
            latticeColumn.withUnsafeBufferPointer { c in
                weight.withUnsafeBufferPointer { w in
                    row.withUnsafeMutableBufferPointer { out in
                        for x in 0..<out.count {
                            let i = Int(c[x])
                            let a = l[i]
                            out[x] += a + (l[i + 1] - a) * w[x]
                        }
                    }
                }
            }
        }
    }

    /// The lattice value at (`i`, `j`), uniform in −1 ... 1.
    @inline(__always)
    func value(_ i: Int64, _ j: Int64) -> Float {
        var h = seed ^ (UInt64(bitPattern: i) &* 0xBF58_476D_1CE4_E5B9) ^ (UInt64(bitPattern: j) &* 0x94D0_49BB_1331_11EB)
        h = (h ^ (h >> 31)) &* 0xD6E8_FEB8_6659_FD93
        h ^= h >> 32
        return Float(h & 0xFFFF) / 32767.5 - 1
    }

    static func smoothstep(_ t: Double) -> Double { t * t * (3 - 2 * t) }
}
