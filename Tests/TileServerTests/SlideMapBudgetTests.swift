import Foundation
import Glibc
import ImageCodecs
import Testing

@testable import TileServer

/// A VMS's JPEGs stay mapped within a budget (the kernel's `vm.max_map_count` bounds a process's mappings): beyond it
/// the least recently read is unmapped, and mapped again when read, with the same pixels; `/metrics` reports them.
@Suite struct SlideMapBudgetTests {
    @Test func jpegsBeyondTheBudgetAreUnmappedAndMappedAgainWhenRead() async throws {
        try await SlideTests.withServer { connection, fixture in
            let pyramid = try #require(SlideTests.slide(connection, "vms/slide"))
            let grid = try #require(pyramid.jpegGrid)
            let white = (red: UInt8(255), green: UInt8(255), blue: UInt8(255))
            // One region inside each of the grid's JPEGs.
            let regions = (0..<(grid.columns * grid.rows)).map { number in
                ((number % grid.columns) * grid.jpegWidth + 24, (number / grid.columns) * grid.jpegHeight + 16)
            }
            #expect(regions.count >= 3)
            var first: [[UInt8]] = []
            for (x, y) in regions {
                first.append(try #require(try grid.rgb(level: 0, x: x, y: y, width: 64, height: 48, background: white)).bytes)
            }
            RestartJPEGGrid.setMapBudget(1)
            defer { RestartJPEGGrid.setMapBudget(nil) }
            let before = RestartJPEGGrid.mapStatistics
            #expect(before.budget == 1)
            for _ in 0..<2 {
                for (index, (x, y)) in regions.enumerated() {
                    let again = try #require(try grid.rgb(level: 0, x: x, y: y, width: 64, height: 48, background: white))
                    #expect(again.bytes == first[index], "JPEG \(index) read through a new mapping gives the same pixels")
                }
            }
            let after = RestartJPEGGrid.mapStatistics
            // Each read of another JPEG unmapped the one before (other tests' reads can only add to this).
            #expect(after.unmapped - before.unmapped >= 2 * regions.count - 1, "\(before) → \(after)")
            // Once no read holds a mapping, at most the budget stay mapped.
            #expect(await eventually { RestartJPEGGrid.mapStatistics.mapped <= 1 })
            let metrics = try await SlideTests.get(connection, "/metrics")
            let text = String(decoding: metrics.bytes, as: UTF8.self)
            #expect(text.contains("\ntiler_slide_jpeg_map_budget 1\n") && text.contains("\ntiler_slide_jpeg_unmaps_total "), "\(text.prefix(200))")
            // A JPEG replaced after it was indexed is not mapped again as if it were the same: that read fails.
            let path = fixture.root + "/vms/slide(0,0).jpg"
            _ = try grid.rgb(level: 0, x: regions[1].0, y: regions[1].1, width: 8, height: 8, background: white)
            let bytes = try #require(FileManager.default.contents(atPath: path))
            #expect(unlink(path) == 0)
            #expect(FileManager.default.createFile(atPath: path, contents: bytes))
            let outcome = Result { () throws(SlideError) in
                try grid.rgb(level: 0, x: regions[0].0, y: regions[0].1, width: 8, height: 8, background: white)
            }
            guard case .failure(let error) = outcome else {
                Issue.record("a replaced JPEG was mapped again under its old index")
                return
            }
            #expect(error.reason.contains("changed since it was indexed"), "\(error)")
        }
    }
}
