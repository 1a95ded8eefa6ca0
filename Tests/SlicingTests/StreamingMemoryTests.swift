import Foundation
import ImageCodecs
import Slicing
import Testing
import TileGeometry

/// Memory follows the width, never the height.
@Suite struct StreamingMemoryTests {
    /// The builder's own accounting: two strips per level of `T + 2·O` rows (or the level height), three of the
    /// full-size level, plus one carry row per level that has a level below.
    static func stripBound(_ pyramid: Pyramid, channels: Int) -> Int {
        (0...pyramid.maxLevel).reduce(0) { total, level in
            let size = pyramid.levelSize(level)
            let strip = size.width * channels * min(pyramid.tileSize + 2 * pyramid.overlap, size.height)
            return total + (level == pyramid.maxLevel ? 3 : 2) * strip + (level > 0 ? size.width * channels : 0)
        }
    }

    @Test func tallImageStaysWithinAWidthBound() throws {
        let (width, height, channels) = (200, 150_000, 1)
        let fixture = try SliceFixture()
        let summary = try PyramidBuilder(options: SliceFixture.options(tileSize: 256, overlap: 1))
            .slice(GeneratedRowSource(width: width, height: height), into: fixture.directory, name: "tall")
        let pyramid = Pyramid(width: width, height: height, tileSize: 256, overlap: 1)
        #expect(summary.peakBufferBytes <= Self.stripBound(pyramid, channels: channels))
        // Under half a megabyte of strips for a 30 MB image: 2% of it at most.
        #expect(summary.peakBufferBytes * 50 < width * height * channels)
        #expect(summary.tiles == PyramidBuilder.tileCount(of: pyramid))

        // Spot-check pixels at the far end: level maxLevel tile (0, last row) against the generator.
        let lastRow = pyramid.grid(pyramid.maxLevel).rows - 1
        let tile = try fixture.tile("tall", level: pyramid.maxLevel, column: 0, row: lastRow)
        let rect = pyramid.tileImageRect(level: pyramid.maxLevel, column: 0, row: lastRow)
        #expect(tile.width == rect.width && tile.height == rect.height)
        let expected = (rect.y..<rect.maxY).flatMap { y in (rect.x..<rect.maxX).map { x in GeneratedRowSource.sample(x: x, y: y) } }
        #expect(tile.pixels == expected)
    }
}
