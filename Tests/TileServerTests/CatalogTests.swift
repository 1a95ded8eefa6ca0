import Foundation
import Testing
import TileServer

/// Pyramids appear and disappear while the server runs; half-written ones never show.
@Suite struct CatalogTests {
    private func names(_ server: Server) throws -> [String] {
        let list = try #require(try fetch(server, "/api/images").json() as? [[String: Any]])
        return list.compactMap { $0["name"] as? String }
    }

    @Test func pyramidAppearsAndDisappearsWhileServing() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("first", width: 300, height: 300)
        try await withServer(fixture) { server in
            #expect(try names(server) == ["first"])
            try fixture.addPyramid("nested/deeper/second", width: 600, height: 400, tileBytes: 50)
            #expect(try await eventually { try names(server) == ["first", "nested/deeper/second"] })
            let tile = try fetch(server, "/images/nested/deeper/second_files/10/1_1.jpg")
            #expect(tile.body == PyramidFixture.tileBytes(level: 10, column: 1, row: 1, count: 50))
            #expect(server.statistics.cacheEntries == 1)

            try fixture.removePyramid("nested/deeper/second")
            #expect(try await eventually { try names(server) == ["first"] })
            #expect(try fetch(server, "/images/nested/deeper/second_files/10/1_1.jpg").status == 404)
            #expect(try fetch(server, "/images/nested/deeper/second.dzi").status == 404)
            // The removed image's tiles leave the cache just after the catalog drops it (the same rescan evicts them
            // once the new list is published; requests in between already get 404).
            #expect(await eventually { server.statistics.cacheEntries == 0 })
        }
    }

    @Test func halfWrittenPyramidsAreNeverServed() async throws {
        let fixture = try PyramidFixture()
        try await withServer(fixture) { server in
            // A slice in progress in a dot-folder, a dot-file descriptor, a descriptor without tiles, a broken one.
            try fixture.addPyramid("photo", width: 300, height: 300, in: fixture.root + "/.photo.tiler-1234")
            try fixture.write("<Image", to: "root/.hidden.dzi")
            try fixture.write(DZIFixtures.valid, to: "root/notiles.dzi")
            try fixture.write("<Image Format=\"jpg\" TileSize=\"0\" Overlap=\"0\"><Size Width=\"5\" Height=\"5\"/></Image>", to: "root/broken.dzi")
            try FileManager.default.createDirectory(atPath: fixture.root + "/broken_files", withIntermediateDirectories: true)
            try fixture.write(DZIFixtures.valid, to: "root/sparse.dzi")
            try FileManager.default.createDirectory(atPath: fixture.root + "/sparse_files", withIntermediateDirectories: true)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try names(server) == ["sparse"])
            #expect(try fetch(server, "/images/notiles.dzi").status == 404)
            #expect(try fetch(server, "/images/.photo.tiler-1234/photo.dzi").status == 404)

            // Publishing: move the finished slice into place; the tiles folder completes it.
            try FileManager.default.moveItem(atPath: fixture.root + "/.photo.tiler-1234/photo_files", toPath: fixture.root + "/photo_files")
            try FileManager.default.moveItem(atPath: fixture.root + "/.photo.tiler-1234/photo.dzi", toPath: fixture.root + "/photo.dzi")
            #expect(try await eventually { try names(server) == ["photo", "sparse"] })
            try FileManager.default.createDirectory(atPath: fixture.root + "/notiles_files", withIntermediateDirectories: true)
            #expect(try await eventually { try names(server).contains("notiles") })
        }
    }

    @Test func rewrittenDescriptorIsReloadedAndOldTilesEvicted() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 300, height: 300, tileBytes: 40)
        try await withServer(fixture) { server in
            #expect(try fetch(server, "/images/alpha_files/9/1_1.jpg").body.count == 40)
            try fixture.addPyramid("alpha", width: 600, height: 600, tileBytes: 60)
            #expect(try await eventually { try fetch(server, "/images/alpha.dzi").text.contains("Width=\"600\"") })
            #expect(try fetch(server, "/images/alpha_files/10/1_1.jpg").body.count == 60)
            #expect(try fetch(server, "/images/alpha_files/9/1_1.jpg").body.count == 60)
        }
    }
}

/// Descriptor texts for catalog tests.
enum DZIFixtures {
    static let valid = "<Image Format=\"jpg\" TileSize=\"256\" Overlap=\"0\"><Size Width=\"300\" Height=\"300\"/></Image>"
}
