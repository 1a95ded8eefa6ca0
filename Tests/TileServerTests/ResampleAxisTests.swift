import Testing

@testable import Rendering
@testable import TileServer

/// The resampling weights (exact area coverage when shrinking, linear when enlarging) as the renderer uses them.
@Suite struct ResampleAxisTests {
    /// The taps of output pixel `i` as (level pixel, weight) pairs, zero weights left out.
    static func taps(_ axis: ResampleAxis, _ i: Int) -> [(Int, Int32)] {
        (0..<axis.taps).compactMap { t in
            let weight = axis.weights[i * axis.taps + t]
            return weight == 0 ? nil : (axis.starts[i] + t, weight)
        }
    }

    @Test func copyingIsOneTapPerPixel() {
        let axis = ResampleAxis(origin: 37, length: 50, count: 50, scale: 1, limit: 700)
        #expect(axis.taps == 1 && axis.sourceStart == 37 && axis.sourceEnd == 87)
        for i in 0..<50 {
            #expect(Self.taps(axis, i).map(\.0) == [37 + i] && Self.taps(axis, i).map(\.1) == [ResampleAxis.one])
        }
    }

    @Test func shrinkingWeightsAreTheCoveredFractions() {
        // 3 level pixels into 2: pixel 0 covers 1 + ½, pixel 1 covers ½ + 1.
        let axis = ResampleAxis(origin: 0, length: 3, count: 2, scale: 1, limit: 3)
        #expect(Self.taps(axis, 0).map(\.0) == [0, 1] && Self.taps(axis, 0).map(\.1) == [10923, 5461])
        #expect(Self.taps(axis, 1).map(\.0) == [1, 2] && Self.taps(axis, 1).map(\.1) == [5461, 10923])
        // Full-resolution 100..<400 into 100 pixels from the level shrunk by 2: 1.5 level pixels each.
        let level = ResampleAxis(origin: 100, length: 300, count: 100, scale: 2, limit: 350)
        #expect(level.sourceStart == 50 && level.sourceEnd == 200)
        #expect(Self.taps(level, 0).map(\.0) == [50, 51])
    }

    @Test(arguments: [(0, 700, 333, 1, 700), (5, 690, 7, 64, 11), (123, 456, 456, 1, 700), (1, 3, 9, 1, 5), (0, 700, 1, 512, 2)])
    func weightsSumToOneAndStayInTheRegion(origin: Int, length: Int, count: Int, scale: Int, limit: Int) {
        let axis = ResampleAxis(origin: origin, length: length, count: count, scale: scale, limit: limit)
        for i in 0..<count {
            let taps = Self.taps(axis, i)
            #expect(taps.reduce(0) { $0 + $1.1 } == ResampleAxis.one)
            #expect(taps.allSatisfy { $0.1 > 0 })
            #expect(taps.allSatisfy { $0.0 >= origin / scale && $0.0 <= (origin + length - 1) / scale && $0.0 < limit })
            if i > 0 { #expect(axis.starts[i] >= axis.starts[i - 1]) }
        }
        #expect(axis.sourceStart == axis.starts[0])
    }

    @Test func enlargingInterpolatesBetweenCentresAndClampsAtTheEdges() {
        // 2 pixels into 4: centres at −0.25, 0.25, 0.75, 1.25 in level pixels.
        let axis = ResampleAxis(origin: 10, length: 2, count: 4, scale: 1, limit: 20)
        #expect(Self.taps(axis, 0).map(\.0) == [10])
        #expect(Self.taps(axis, 1).map(\.1) == [12288, 4096])
        #expect(Self.taps(axis, 2).map(\.1) == [4096, 12288])
        #expect(Self.taps(axis, 3).map(\.0) == [11])
        #expect(axis.sourceStart == 10 && axis.sourceEnd == 12)
    }
}
