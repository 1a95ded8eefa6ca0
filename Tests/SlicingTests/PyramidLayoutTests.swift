import Foundation
import ImageCodecs
import Slicing
import Testing
import TileGeometry

/// Concrete facts about one pyramid's files, worked out by hand, as dzsave's tests assert them.
@Suite struct PyramidLayoutTests {
    @Test func thousandBy777Layout() throws {
        let fixture = try SliceFixture()
        let image = TestImage.random(width: 1000, height: 777, channels: 1, seed: 3)
        let summary = try PyramidBuilder(options: SliceFixture.options(tileSize: 256, overlap: 1))
            .slice(MemoryRowSource(image), into: fixture.directory, name: "photo")
        #expect(try fixture.listing() == ["photo.dzi", "photo_files"])
        // ceil(log2(1000)) = 10: levels 0 … 10 and no level 11.
        #expect(Set(try fixture.listing("photo_files")) == Set((0...10).map(String.init)))
        #expect(summary.levels == 11)
        // Level 10 is 1000×777: 4×4 tiles; interior tiles carry 1 px of overlap on each side.
        #expect(try fixture.listing("photo_files/10").count == 16)
        let corner = try fixture.tile("photo", level: 10, column: 0, row: 0)
        let inner = try fixture.tile("photo", level: 10, column: 1, row: 1)
        let edge = try fixture.tile("photo", level: 10, column: 3, row: 3)
        #expect((corner.width, corner.height) == (257, 257))
        #expect((inner.width, inner.height) == (258, 258))
        #expect((edge.width, edge.height) == (1000 - 767, 777 - 767))
        // Level 8 is 250×195: one tile. Level 0 is 1×1.
        let level8 = try fixture.tile("photo", level: 8, column: 0, row: 0)
        #expect((level8.width, level8.height) == (250, 195))
        let level0 = try fixture.tile("photo", level: 0, column: 0, row: 0)
        #expect((level0.width, level0.height, level0.channels) == (1, 1, 1))
        // 16 + 4 (500×389) + 9 one-tile levels.
        #expect(summary.tiles == 29)
    }

    @Test func progressIsReportedAndEndsComplete() throws {
        let fixture = try SliceFixture()
        var options = SliceFixture.options(tileSize: 64)
        options.progressInterval = 0
        let image = TestImage.random(width: 300, height: 500, channels: 3, seed: 5)
        var reports: [SliceProgress] = []
        let summary = try PyramidBuilder(options: options).slice(MemoryRowSource(image), into: fixture.directory, name: "p") { reports.append($0) }
        let last = try #require(reports.last)
        #expect(reports.count > 2)
        #expect(last.rowsRead == 500 && last.totalRows == 500)
        #expect(last.tilesWritten == last.totalTiles && last.totalTiles == summary.tiles)
        #expect(last.bytesWritten == summary.bytesWritten && last.fractionCompleted == 1)
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.rowsRead <= $1.rowsRead && $0.tilesWritten <= $1.tilesWritten })
        #expect(summary.bytesWritten > 300 * 500 * 3)
        #if os(Linux)
            #expect((summary.peakResidentBytes ?? 0) > 1 << 20)
        #endif
        #expect(summary.dziPath == "\(fixture.directory)/p.dzi" && summary.filesPath == "\(fixture.directory)/p_files")
    }
}
