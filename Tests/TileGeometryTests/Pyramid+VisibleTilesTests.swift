import Foundation
import TestSupport
import Testing
import TileGeometry

@Suite struct PyramidVisibleTilesTests {
    /// The example of the spec: a 32768×24576 image, 1024×576 points at zoom 0.25 from the origin.
    @Test func specExample() throws {
        let pyramid = Pyramid(width: 32_768, height: 24_576)
        let viewport = try Viewport(x: 0, y: 0, width: 1024, height: 576, zoomScale: 0.25)
        let answer = try pyramid.visibleTiles(in: viewport)
        #expect(pyramid.maxLevel == 15 && answer.level == 13 && answer.levelScale == 0.25)
        #expect(answer.levelSize == (8192, 6144))
        #expect(answer.visibleRect == ImageRect(x: 0, y: 0, width: 4096, height: 2304))
        #expect(answer.tiles.count == 4 * 3)
        let corner = try #require(answer.tiles.first { $0.column == 3 && $0.row == 2 })
        #expect(corner.frame == PixelRect(x: 3072, y: 2048, width: 1024, height: 1024))
        VisibleTilesChecker(pyramid: pyramid, viewport: viewport, answer: answer).checkAll()
    }

    @Test func framesTouchingTheRectOnlyAlongAnEdgeAreLeftOut() throws {
        let pyramid = Pyramid(width: 2048, height: 2048)
        // Exactly tile (1, 1) of the full-resolution level: [256, 512]².
        let answer = try pyramid.visibleTiles(in: Viewport(x: 256, y: 256, width: 256, height: 256, zoomScale: 1))
        #expect(answer.level == pyramid.maxLevel)
        #expect(answer.tiles.map { [$0.column, $0.row] } == [[1, 1]])
        let widened = try pyramid.visibleTiles(in: Viewport(x: 256, y: 256, width: 256, height: 256, zoomScale: 1, prefetch: 1))
        #expect(widened.tiles.count == 9 && widened.tiles.first.map { [$0.column, $0.row] } == [1, 1])
    }

    @Test(arguments: [(-2000.0, 0.0), (0, -2000), (5000, 0), (0, 5000), (-300, -300), (4000, 10)])
    func nothingVisibleMeansNoTilesButALevel(x: Double, y: Double) throws {
        let pyramid = Pyramid(width: 4000, height: 3000)
        let viewport = try Viewport(x: x, y: y, width: 300, height: 300, zoomScale: 1, prefetch: 2)
        let answer = try pyramid.visibleTiles(in: viewport)
        #expect(answer.visibleRect == nil && answer.tiles.isEmpty && answer.level == pyramid.maxLevel)
    }

    @Test func negativeOffsetsShowTheTopLeftCorner() throws {
        let pyramid = Pyramid(width: 1000, height: 1000)
        let answer = try pyramid.visibleTiles(in: Viewport(x: -100, y: -50, width: 300, height: 200, zoomScale: 1))
        #expect(answer.visibleRect == ImageRect(minX: 0, minY: 0, maxX: 200, maxY: 150))
        #expect(answer.tiles.map { [$0.column, $0.row] } == [[0, 0]])
    }

    @Test(arguments: [(1e-300, 0), (1e300, 1), (1.0, 1)])
    func absurdZoomsClampTheLevel(zoomScale: Double, expectMaxLevel: Int) throws {
        let pyramid = Pyramid(width: 100_000, height: 60_000)
        let answer = try pyramid.visibleTiles(in: Viewport(x: 0, y: 0, width: 1920, height: 1080, zoomScale: zoomScale))
        #expect(answer.level == (expectMaxLevel == 1 ? pyramid.maxLevel : 0))
        #expect(!answer.tiles.isEmpty)
    }

    @Test(arguments: [
        (1e308, 1e308, 1e308, 1e-300), (-1e308, -1e308, 1e308, 1e-300), (-1e308, 0, 1.7e308, 1e300), (1e15, 1e15, 1e15, 1e-15),
        (-.greatestFiniteMagnitude, -.greatestFiniteMagnitude, .greatestFiniteMagnitude, .leastNonzeroMagnitude),
    ])
    func hugeOffsetsAndSizesNeverTrap(x: Double, y: Double, size: Double, zoomScale: Double) throws {
        let pyramid = Pyramid(width: 100_000, height: 3)
        let viewport = try Viewport(x: x, y: y, width: size, height: size, zoomScale: zoomScale, contentScale: 3, prefetch: .max)
        let answer = try pyramid.visibleTiles(in: viewport)
        VisibleTilesChecker(pyramid: pyramid, viewport: viewport, answer: answer).checkAll()
    }

    @Test func theTileLimitNamesWhatAskedForTooMuch() throws {
        let pyramid = try Pyramid.validated(width: 1 << 31, height: 1 << 31, tileSize: 1)
        let big = try Viewport(x: 0, y: 0, width: 1e9, height: 1e9, zoomScale: 1)
        #expect(throws: GeometryError.self) { try pyramid.visibleTiles(in: big) }
        #expect((try? pyramid.visibleTiles(in: big))?.tiles == nil)
        let error = #expect(throws: GeometryError.self) { try pyramid.visibleTiles(in: big) }
        #expect(error?.parameter == "viewport")
        let greedy = try Viewport(x: 0, y: 0, width: 10, height: 10, zoomScale: 1, prefetch: .max)
        let prefetchError = #expect(throws: GeometryError.self) { try pyramid.visibleTiles(in: greedy) }
        #expect(prefetchError?.parameter == "prefetch")
        let small = try pyramid.visibleTiles(in: Viewport(x: 0, y: 0, width: 10, height: 10, zoomScale: 1, prefetch: 2))
        #expect(small.tiles.count == 12 * 12)
        let whole = try Pyramid(width: 1000, height: 700).visibleTiles(in: Viewport(x: 0, y: 0, width: 1, height: 1, zoomScale: 1, prefetch: .max))
        #expect(whole.tiles.count == 4 * 3)
        #expect(throws: GeometryError.self) { try Pyramid(width: 1000, height: 700).visibleTiles(in: greedy, tileLimit: 11) }
    }

    /// Long strips crowd many tiles into the nearest distances (the order's bucket sort then falls back to a full
    /// sort); wide blocks with symmetric centres produce many exact distance ties.
    @Test(arguments: [(100_000, 1, 1, 6_000.0, 1.0), (1, 100_000, 1, 1, 6_000), (4096, 4096, 8, 1024, 1024), (100_000, 100_000, 256, 20_000, 20_000)])
    func largeBlocksAreOrderedExactly(width: Int, height: Int, tileSize: Int, viewWidth: Double, viewHeight: Double) throws {
        let pyramid = Pyramid(width: width, height: height, tileSize: tileSize)
        for offset in [0.0, 17.25, 1_000] {
            let viewport = try Viewport(
                x: width > 1 ? offset : 0, y: height > 1 ? offset : 0, width: viewWidth, height: viewHeight, zoomScale: 1, prefetch: 1)
            let answer = try pyramid.visibleTiles(in: viewport)
            #expect(answer.tiles.count > 1_000)
            VisibleTilesChecker(pyramid: pyramid, viewport: viewport, answer: answer).checkAll()
        }
    }

    /// Exact powers of two sit on the coarser level; anything above moves one level finer.
    @Test(arguments: -12...3)
    func levelBoundariesAtPowersOfTwo(exponent: Int) {
        let pyramid = Pyramid(width: 5000, height: 100)  // maxLevel 13
        let z = pow(2, Double(exponent))
        let exact = min(max(pyramid.maxLevel + exponent, 0), pyramid.maxLevel)
        #expect(pyramid.level(zoomScale: z) == exact)
        #expect(pyramid.level(zoomScale: z / 2, contentScale: 2) == exact)
        #expect(pyramid.level(zoomScale: z * (1 + 1e-12)) == exact, "within the 1e-9 tolerance")
        #expect(pyramid.level(zoomScale: z * 1.000_001) == min(max(exact + 1, 0), pyramid.maxLevel) || exact == pyramid.maxLevel)
        #expect(pyramid.level(zoomScale: z * 0.999_999) == max(exact, 0))
    }

    @Test func levelMatchesTheLog2FormulaAcrossMagnitudes() {
        var random = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let pyramid = Pyramid(width: Int.random(in: 1...(1 << 31), using: &random), height: 1)
            let zoomScale = random.logUniform(1e-12...1e6)
            let contentScale = [1, 1.5, 2, 3][Int.random(in: 0..<4, using: &random)]
            #expect(
                pyramid.level(zoomScale: zoomScale, contentScale: contentScale)
                    == Reference.level(maxLevel: pyramid.maxLevel, zoomScale: zoomScale, contentScale: contentScale))
        }
        #expect(Pyramid(width: 8, height: 8).level(zoomScale: .leastNonzeroMagnitude, contentScale: .leastNonzeroMagnitude) == 0)
        #expect(Pyramid(width: 8, height: 8).level(zoomScale: .greatestFiniteMagnitude, contentScale: 2) == 3)
    }
}
