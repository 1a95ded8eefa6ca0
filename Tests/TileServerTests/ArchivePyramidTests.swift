import Foundation
import TestSupport
import Testing
import TileGeometry

@testable import TileServer

/// SZIs served in place: found beside folder pyramids, every tile the archive's bytes (from the cache, or with
/// `sendfile` from their offset), Range and conditional requests as for files, libvips' SZIs too, and damaged
/// archives refused with one log line each, never served.
@Suite struct ArchivePyramidTests {
    /// Room for 3 tiles and no warming, as in ``FileSendTests``: misses that are not admitted are sent from the file.
    static func smallCache(_ fixture: PyramidFixture) -> ServerConfiguration {
        var configuration = testConfiguration(root: fixture.root)
        configuration.cacheBytes = 3_300
        configuration.maxPrefetchTiles = 0
        return configuration
    }

    @Test func archiveTilesAreServedLikeFolderTiles() async throws {
        let fixture = try PyramidFixture()
        let descriptor = try fixture.addArchive("packed", width: 2048, height: 2048, tileBytes: 1000)
        try fixture.addPyramid("loose", width: 300, height: 200)
        try await withServer(fixture) { server in
            let list = try fetch(server, "/api/images")
            #expect(list.text.contains("\"packed\"") && list.text.contains("\"loose\""), "\(list.text)")
            let dzi = try fetch(server, "/images/packed.dzi")
            #expect(dzi.status == 200 && dzi.text == descriptor.xml)
            for (level, column, row) in [(11, 0, 0), (11, 7, 5), (10, 3, 3), (0, 0, 0)] {
                let tile = try fetch(server, "/images/packed_files/\(level)/\(column)_\(row).jpg")
                #expect(tile.status == 200 && tile.header("Content-Type") == "image/jpeg")
                #expect(tile.body == PyramidFixture.tileBytes(level: level, column: column, row: row, count: 1000), "\(level)/\(column)_\(row)")
            }
            let range = try fetch(server, "/images/packed_files/11/2_2.jpg", headers: ["Range: bytes=10-19"])
            #expect(range.status == 206 && range.body == Array(PyramidFixture.tileBytes(level: 11, column: 2, row: 2, count: 1000)[10...19]))
            let etag = try #require(try fetch(server, "/images/packed_files/11/2_2.jpg").header("ETag"))
            let other = try #require(try fetch(server, "/images/packed_files/11/2_3.jpg").header("ETag"))
            #expect(etag != other, "tiles of one archive (same size, same file time) have their own entity tags")
            #expect(try fetch(server, "/images/packed_files/11/2_2.jpg", headers: ["If-None-Match: \(etag)"]).status == 304)
            #expect(try fetch(server, "/images/packed_files/11/8_0.jpg").status == 404)
            #expect(try fetch(server, "/images/packed_files/12/0_0.jpg").status == 404)
            let info = try fetch(server, "/iiif/3/packed/info.json")
            #expect(info.status == 200 && info.text.contains("\"width\":2048"))
            let visible = try fetch(server, "/api/images/packed/visible?x=0&y=0&width=800&height=600&zoomScale=0.5")
            #expect(visible.status == 200 && visible.text.contains("\"tiles\""))
        }
    }

    @Test(arguments: [true, false])
    func missesTheCacheDoesNotAdmitAreSentFromTheArchive(cachestat: Bool) async throws {
        let fixture = try PyramidFixture()
        try fixture.addArchive("packed", width: 2048, height: 2048, tileBytes: 1000)
        fixture.writeBack()
        var configuration = Self.smallCache(fixture)
        configuration.usesCachestat = cachestat
        try await withServer(fixture, configuration) { server in
            for column in 0..<3 { _ = try fetch(server, "/images/packed_files/11/\(column)_0.jpg") }
            var etags: [String] = []
            for column in 0..<5 {
                let response = try fetch(server, "/images/packed_files/11/\(column)_1.jpg")
                #expect(response.status == 200 && response.header("Content-Length") == "1000")
                #expect(response.body == PyramidFixture.tileBytes(level: 11, column: column, row: 1, count: 1000))
                etags.append(response.header("ETag") ?? "")
            }
            // Sent from the archive (a read that must not wait is now and then refused on a busy machine: read instead).
            #expect(server.statistics.fileSends >= 3 && server.statistics.fileSends + server.statistics.diskReads == 8)
            // Read into the cache once asked for again: the same entity tag as when sent from the archive.
            _ = try fetch(server, "/images/packed_files/11/4_1.jpg")
            let cached = try fetch(server, "/images/packed_files/11/4_1.jpg")
            #expect(cached.header("X-Cache") == "hit" && cached.header("ETag") == etags[4])
        }
    }

    @Test func vipsDzsaveArchivesAreServed() async throws {
        let fixture = try PyramidFixture()
        let made = try await blocking { () throws -> (ExternalTool.Outcome, ExternalTool.Outcome) in
            let picture = try ExternalTool.run("/usr/bin/vips", ["gaussnoise", fixture.base + "/noise.v", "700", "500"])
            return (picture, try ExternalTool.run("/usr/bin/vips", ["dzsave", fixture.base + "/noise.v", fixture.root + "/vipsmade.szi"]))
        }
        #expect(made.0.status == 0 && made.1.status == 0, "\(made.0.errors) \(made.1.errors)")
        let script = """
            import sys, zipfile
            print(zipfile.ZipFile(sys.argv[1]).read("vipsmade/vipsmade_files/10/2_1.jpeg").hex())
            """
        let expected = try await blocking { try ExternalTool.run("/usr/bin/python3", ["-c", script, fixture.root + "/vipsmade.szi"]) }
        try await withServer(fixture) { server in
            let dzi = try fetch(server, "/images/vipsmade.dzi")
            #expect(dzi.status == 200 && dzi.text.contains("Format=\"jpeg\""))
            let tile = try fetch(server, "/images/vipsmade_files/10/2_1.jpeg")
            #expect(tile.status == 200)
            #expect(tile.body.map { String(format: "%02x", $0) }.joined() == expected.output.trimmingCharacters(in: .whitespacesAndNewlines))
            // IIIF renders a region from the archive's tiles (read through the tile store, decoded, resampled).
            let region = try fetch(server, "/iiif/3/vipsmade/100,100,400,300/200,/0/default.png")
            #expect(region.status == 200)
            let pixels = try decodeImage(region.body)
            #expect(pixels.width == 200 && pixels.height == 150)
        }
    }

    /// ROOT holding one archive, `packed` (1024², 1000-byte tiles), served with ``smallCache(_:)``, rescanned every
    /// `rescan` and walked whole only hourly: what an archive changed in place is checked against.
    static func packedArchive(rescan: Duration) throws -> (PyramidFixture, ServerConfiguration) {
        let fixture = try PyramidFixture()
        try fixture.addArchive("packed", width: 1024, height: 1024, tileBytes: 1000)
        var configuration = smallCache(fixture)
        configuration.rescanInterval = rescan
        configuration.fullRescanInterval = .seconds(3600)
        return (fixture, configuration)
    }

    @Test func anArchiveTruncatedInPlaceIsNeverServedFromItsOldIndex() async throws {
        let (fixture, configuration) = try Self.packedArchive(rescan: .seconds(3600))
        try await withServer(fixture, configuration) { server in
            #expect(try fetch(server, "/images/packed_files/10/0_0.jpg").status == 200)
            #expect(truncate(fixture.root + "/packed.szi", 5000) == 0)
            for column in 1..<4 {
                let response = try fetch(server, "/images/packed_files/10/\(column)_3.jpg")
                #expect(response.status != 200, "a tile was served from an archive that changed since it was indexed")
            }
        }
    }

    /// An archive rewritten in place (the same inode, so its folder's time does not move) is listed afresh at the next
    /// rescan, not at the next full walk: the read that finds it changed asks for one. Full walks are an hour apart here.
    @Test func anArchiveRewrittenInPlaceIsListedAfreshAtTheNextRescan() async throws {
        let (fixture, configuration) = try Self.packedArchive(rescan: .milliseconds(100))
        let other = try PyramidFixture()
        try other.addArchive("packed", width: 1024, height: 1024, tileBytes: 1200)
        try await withServer(fixture, configuration) { server in
            #expect(try fetch(server, "/images/packed_files/10/0_0.jpg").body.count == 1000)
            // Past the second in which a folder's time is too fresh to trust (such a folder is listed every scan).
            try await Task.sleep(for: .milliseconds(1500))
            let replacement = try Data(contentsOf: URL(fileURLWithPath: other.root + "/packed.szi"))
            let handle = try #require(FileHandle(forWritingAtPath: fixture.root + "/packed.szi"))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: replacement)
            try handle.close()
            #expect(try fetch(server, "/images/packed_files/10/1_3.jpg").status != 200, "not from the old index")
            let fresh = try await eventually(within: 5) {
                let tile = try fetch(server, "/images/packed_files/10/1_3.jpg")
                return tile.status == 200 && tile.body == PyramidFixture.tileBytes(level: 10, column: 1, row: 3, count: 1200)
            }
            #expect(fresh, "listed afresh by the next rescan")
        }
    }
}
