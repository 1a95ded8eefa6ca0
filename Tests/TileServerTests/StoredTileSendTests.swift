import Foundation
import ImageCodecs
import TestSupport
import Testing

@testable import TileServer

/// A pyramidal TIFF's JPEG tiles passed through are sent from the file (`sendfile`, after the level's tables) when the
/// cache does not take them, as an SZI's are: the same bytes, entity tags and ranges as when read into the cache, and a
/// damaged tile refused the same way.
@Suite(.serialized) struct StoredTileSendTests {
    /// A 1100 × 700 picture in a vips pyramidal TIFF with 256-pixel JPEG tiles: level 11 stored, its 4 × 2 interior tiles
    /// passed through; one of them, (1, 0), damaged in `broken.tif` (its EOI overwritten).
    static func fixture() throws -> PyramidFixture {
        let fixture = try PyramidFixture()
        let options = ["--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid", "--compression", "jpeg", "--Q", "90"]
        try fixture.addVipsTIFF("photo.tif", picture: StoredPyramidTests.picture, options: options)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: fixture.root + "/photo.tif")))
        let region = try TIFFPyramid(path: fixture.root + "/photo.tif").jpegTileRegion(level: 0, column: 1, row: 0)
        bytes[region.offset + region.length - 2] = 0x12
        try Data(bytes).write(to: URL(fileURLWithPath: fixture.root + "/broken.tif"))
        fixture.writeBack()
        return fixture
    }

    /// No tile fits the cache: every passed-through tile is answered from the file.
    static func noCache(_ fixture: PyramidFixture, cachestat: Bool) -> ServerConfiguration {
        var configuration = testConfiguration(root: fixture.root)
        configuration.cacheBytes = 100
        configuration.maxPrefetchTiles = 0
        configuration.usesCachestat = cachestat
        return configuration
    }

    @Test(arguments: [true, false])
    func passedThroughTilesAreSentFromTheFileAsTheyWouldBeRead(cachestat: Bool) async throws {
        let fixture = try await blocking { try Self.fixture() }
        let pyramid = try TIFFPyramid(path: fixture.root + "/photo.tif")
        let tiles = (0..<2).flatMap { row in (0..<4).map { column in (column, row) } }
        // Read into the cache (the default configuration): the reference bytes and entity tags.
        var cached: [String: (body: [UInt8], etag: String)] = [:]
        try await withServer(fixture) { server in
            for (column, row) in tiles {
                let response = try fetch(server, "/images/photo_files/11/\(column)_\(row).jpg")
                cached["\(column)_\(row)"] = (response.body, response.header("ETag") ?? "")
            }
        }
        try await withServer(fixture, Self.noCache(fixture, cachestat: cachestat)) { server in
            for (column, row) in tiles {
                let response = try fetch(server, "/images/photo_files/11/\(column)_\(row).jpg")
                let expected = try pyramid.jpegTile(level: 0, column: column, row: row)
                #expect(response.status == 200 && response.body == expected, "\(column)_\(row)")
                #expect(response.header("Content-Length") == "\(expected.count)")
                #expect(response.header("ETag") == cached["\(column)_\(row)"]?.etag && cached["\(column)_\(row)"]?.body == expected)
            }
            let statistics = server.statistics
            // Sent from the file (a read that must not wait is now and then refused on a busy machine: read instead).
            #expect(statistics.fileSends >= (cachestat ? 4 : 0) && statistics.fileSends + statistics.diskReads >= 8, "\(statistics)")
            // Ranges inside the tables, across their end into the file's bytes, and inside the file's bytes.
            let expected = try pyramid.jpegTile(level: 0, column: 2, row: 1)
            let prefix = try pyramid.jpegTileRegion(level: 0, column: 2, row: 1).prefix.count
            for range in [0...9, (prefix - 5)...(prefix + 5), prefix...(prefix + 99), (expected.count - 10)...(expected.count - 1)] {
                let partial = try fetch(server, "/images/photo_files/11/2_1.jpg", headers: ["Range: bytes=\(range.lowerBound)-\(range.upperBound)"])
                #expect(partial.status == 206 && partial.body == Array(expected[range]), "\(range)")
            }
            let etag = try #require(cached["2_1"]?.etag)
            #expect(try fetch(server, "/images/photo_files/11/2_1.jpg", headers: ["If-None-Match: \(etag)"]).status == 304)
            let head = try fetch(server, "/images/photo_files/11/2_1.jpg", method: "HEAD")
            #expect(head.status == 200 && head.header("Content-Length") == "\(expected.count)" && head.body.isEmpty)
        }
    }

    /// A tile's markers are checked once per opening of the file; a file rewritten in place since is not sent from
    /// unchecked: the damaged tile is refused as when it is read.
    @Test func aTileDamagedInPlaceAfterItWasSentIsNotSentAgain() async throws {
        let fixture = try await blocking { try Self.fixture() }
        let path = fixture.root + "/photo.tif"
        let region = try TIFFPyramid(path: path).jpegTileRegion(level: 0, column: 1, row: 0)
        try await withServer(fixture, Self.noCache(fixture, cachestat: true)) { server in
            let first = try fetch(server, "/images/photo_files/11/1_0.jpg")
            #expect(first.status == 200)
            // The same size, another last byte but one (no EOI any more) and a new modification time.
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try handle.seek(toOffset: UInt64(region.offset + region.length - 2))
            try handle.write(contentsOf: [0x12])
            try handle.close()
            let again = try fetch(server, "/images/photo_files/11/1_0.jpg")
            #expect(again.status != 200 && again.body != first.body, "\(again.status)")
        }
    }

    @Test func aDamagedTileIsRefusedAsWhenItIsRead() async throws {
        let fixture = try await blocking { try Self.fixture() }
        var statuses: [Int] = []
        for configuration in [testConfiguration(root: fixture.root), Self.noCache(fixture, cachestat: true)] {
            try await withServer(fixture, configuration) { server in
                statuses.append(try fetch(server, "/images/broken_files/11/1_0.jpg").status)
                #expect(try fetch(server, "/images/broken_files/11/2_0.jpg").status == 200, "the other tiles are served")
            }
        }
        #expect(statuses.count == 2 && statuses[0] == statuses[1] && statuses[0] >= 500, "\(statuses)")
    }
}
