/// The filter weights of one axis of a separable resampling from pyramid level pixels to output pixels, in exact
/// integer arithmetic.
///
/// The output's `count` pixels cover the full-resolution span `origin ..< origin + length`, read from a level that
/// is the image shrunk by `scale` (level pixel `j` stands for full-resolution pixels `j·scale ..< (j+1)·scale`).
/// When an output pixel covers at least one level pixel (shrinking, or copying) its value is the area average of
/// the level pixels it covers, each weighted by the fraction of it that is covered (a box filter with fractional
/// coverage). When it covers less (enlarging) it is interpolated linearly between the two nearest level pixel
/// centres (a triangle filter), clamped to the region's own pixels. Weights are 14-bit fixed point, summing to
/// exactly ``one`` per output pixel.
package struct ResampleAxis: Sendable {
    /// The fixed-point weight that stands for 1.
    package static let one: Int32 = 1 << 14

    /// Output pixels.
    package let count: Int
    /// Taps per output pixel in ``weights`` (the widest filter; shorter ones are padded with zero weights).
    package let taps: Int
    /// The first level pixel each output pixel reads.
    package let starts: [Int]
    /// `count × taps` weights: output pixel `i` is `Σ weights[i·taps + t] · level[starts[i] + t]`.
    package let weights: [Int32]
    /// The first level pixel any output pixel reads.
    package let sourceStart: Int
    /// One past the last level pixel any output pixel reads.
    package let sourceEnd: Int

    /// The weights for `count` output pixels covering full-resolution pixels `origin ..< origin + length`, read from
    /// a level shrunk by `scale` that is `limit` pixels long.
    ///
    /// - Precondition: `count ≥ 1`, `length ≥ 1`, `scale ≥ 1`, and the span lies inside the level
    ///   (`origin + length ≤ limit · scale`).
    package init(origin: Int, length: Int, count: Int, scale: Int, limit: Int) {
        precondition(count >= 1 && length >= 1 && scale >= 1 && origin >= 0 && origin + length <= limit * scale)
        var rows: [[(index: Int, weight: Int)]] = []
        rows.reserveCapacity(count)
        let shrinking = length >= scale * count
        for i in 0..<count {
            let raw =
                shrinking
                ? Self.box(i, origin: origin, length: length, count: count, scale: scale)
                : Self.triangle(i, origin: origin, length: length, count: count, scale: scale)
            rows.append(Self.fixedPoint(raw.map { (min($0.index, limit - 1), $0.weight) }))
        }
        self.count = count
        taps = rows.map(\.count).max() ?? 1
        starts = rows.map { $0.first?.index ?? 0 }
        var weights = [Int32](repeating: 0, count: count * taps)
        for (i, row) in rows.enumerated() {
            for tap in row {
                weights[i * taps + tap.index - row[0].index] += Int32(tap.weight)
            }
        }
        self.weights = weights
        sourceStart = starts.min() ?? 0
        sourceEnd = zip(starts, rows).map { $0 + ($1.last!.index - $1.first!.index) + 1 }.max() ?? 1
    }

    /// Area weights of output pixel `i`: positions are measured in units of 1/(scale·count) full-resolution
    /// pixels, so output pixel `i` covers `a ..< a + length` with `a = origin·count + i·length`, and level pixel
    /// `j` covers `j·D ..< (j+1)·D` with `D = scale·count`. All exact.
    private static func box(_ i: Int, origin: Int, length: Int, count: Int, scale: Int) -> [(index: Int, weight: Int)] {
        let unit = scale * count
        let a = origin * count + i * length
        let b = a + length
        var taps: [(index: Int, weight: Int)] = []
        for j in (a / unit)...((b - 1) / unit) {
            taps.append((j, min(b, (j + 1) * unit) - max(a, j * unit)))
        }
        return taps
    }

    /// Linear weights of output pixel `i`: its centre, in level pixel coordinates (where pixel `j`'s centre is
    /// `j`), is `c = (2·origin·count + (2i+1)·length − scale·count) / (2·scale·count)`; the two level pixels around
    /// it are weighted by nearness, and indices are clamped to the region's level pixels.
    private static func triangle(_ i: Int, origin: Int, length: Int, count: Int, scale: Int) -> [(index: Int, weight: Int)] {
        let unit = 2 * scale * count
        let numerator = 2 * origin * count + (2 * i + 1) * length - scale * count
        let lower = numerator >= 0 ? numerator / unit : -((-numerator + unit - 1) / unit)
        let fraction = numerator - lower * unit
        let first = origin / scale
        let last = (origin + length - 1) / scale
        let clamp = { (j: Int) in min(max(j, first), last) }
        return [(clamp(lower), unit - fraction), (clamp(lower + 1), fraction)]
    }

    /// Merges taps on the same index, converts to fixed point summing to exactly ``one`` (the rounding remainder
    /// goes to the heaviest tap), and drops zero-weight taps at either end.
    private static func fixedPoint(_ raw: [(index: Int, weight: Int)]) -> [(index: Int, weight: Int)] {
        var merged: [(index: Int, weight: Int)] = []
        for tap in raw {
            if let last = merged.last, last.index == tap.index {
                merged[merged.count - 1].weight += tap.weight
            } else {
                merged.append(tap)
            }
        }
        let total = merged.reduce(0) { $0 + $1.weight }
        var fixed = merged.map { (index: $0.index, weight: ($0.weight * Int(one) + total / 2) / total) }
        let heaviest = fixed.indices.max { fixed[$0].weight < fixed[$1].weight }!
        fixed[heaviest].weight += Int(one) - fixed.reduce(0) { $0 + $1.weight }
        while fixed.count > 1 && fixed.last!.weight == 0 { fixed.removeLast() }
        while fixed.count > 1 && fixed.first!.weight == 0 { fixed.removeFirst() }
        return fixed
    }
}
