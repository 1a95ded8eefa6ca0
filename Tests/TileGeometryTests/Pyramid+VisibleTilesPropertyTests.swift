import Foundation
import TestSupport
import Testing
import TileGeometry

/// Thousands of seeded random pyramids and viewports, each answer checked against every rule of the spec.
@Suite struct PyramidVisibleTilesPropertyTests {
    @Test(arguments: [1, 2, 3, 4])
    func randomViewportsFollowTheSpec(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        for _ in 0..<2_500 {
            let pyramid = Self.randomPyramid(using: &random)
            let viewport = try Self.randomViewport(of: pyramid, using: &random)
            let answer = try pyramid.visibleTiles(in: viewport)
            VisibleTilesChecker(pyramid: pyramid, viewport: viewport, answer: answer).checkAll()
        }
    }

    @Test func prefetchWidensTheUnprefetchedAnswer() throws {
        var random = SplitMix64(seed: 99)
        for _ in 0..<500 {
            let pyramid = Self.randomPyramid(using: &random)
            let base = try Self.randomViewport(of: pyramid, using: &random)
            let plain = try pyramid.visibleTiles(
                in: Viewport(x: base.x, y: base.y, width: base.width, height: base.height, zoomScale: base.zoomScale, contentScale: base.contentScale)
            )
            let widened = try pyramid.visibleTiles(in: base)
            #expect(widened.level == plain.level && widened.visibleRect == plain.visibleRect)
            #expect(Set(plain.tiles).isSubset(of: Set(widened.tiles)))
            guard let columns = plain.tiles.map(\.column).minAndMax(), let rows = plain.tiles.map(\.row).minAndMax() else {
                #expect(widened.tiles.isEmpty)
                continue
            }
            let grid = pyramid.grid(plain.level)
            let p = base.prefetch
            #expect(widened.tiles.map(\.column).minAndMax()! == (max(0, columns.0 - p), min(grid.columns - 1, columns.1 + p)))
            #expect(widened.tiles.map(\.row).minAndMax()! == (max(0, rows.0 - p), min(grid.rows - 1, rows.1 + p)))
        }
    }

    /// Sides log-uniform in 1 … 2²⁰ (a few tiny), tile sizes from 1 to 1024.
    static func randomPyramid(using random: inout SplitMix64) -> Pyramid {
        let tileSize = [1, 2, 7, 254, 256, 256, 512, 1024][Int.random(in: 0..<8, using: &random)]
        let side = { (random: inout SplitMix64) in Int(random.logUniform(1...1_048_576)) }
        return Pyramid(width: side(&random), height: side(&random), tileSize: tileSize)
    }

    /// A viewport of at most ~12 tiles across at the chosen level, at zooms from a quarter of aspect fit to 8×,
    /// offsets from a viewport before the image to just past it (so some show nothing), prefetch 0 … 3.
    static func randomViewport(of pyramid: Pyramid, using random: inout SplitMix64) throws -> Viewport {
        let contentScale = [1, 1.5, 2, 3][Int.random(in: 0..<4, using: &random)]
        let limit = min(2_000, Double(pyramid.tileSize) * 6 / contentScale)
        let width = random.logUniform(0.5...max(limit, 0.5))
        let height = random.logUniform(0.5...max(limit, 0.5))
        let fit = min(width / Double(pyramid.width), height / Double(pyramid.height))
        let zoomScale = random.logUniform((fit / 4)...max(8, fit))
        let x = Double.random(in: -width...(Double(pyramid.width) * zoomScale + 1), using: &random)
        let y = Double.random(in: -height...(Double(pyramid.height) * zoomScale + 1), using: &random)
        let prefetch = Int.random(in: 0...3, using: &random)
        return try Viewport(x: x, y: y, width: width, height: height, zoomScale: zoomScale, contentScale: contentScale, prefetch: prefetch)
    }
}

extension Array where Element == Int {
    fileprivate func minAndMax() -> (Int, Int)? {
        guard let low = self.min(), let high = self.max() else { return nil }
        return (low, high)
    }
}
