import Foundation
import ImageCodecs
import NIOCore
import ObjectStore
import ObjectStoreTestSupport
import TestSupport
import Testing

@testable import TileServer
@testable import TileSources

/// What a bucket's TIFFs cost and how they fail, against a real Ceph RADOS Gateway (behind a real proxy that counts
/// the requests, ``FaultProxy``): a COG-layout TIFF opens with one GET and each tile is one more; a replaced object is
/// a new version, never a mix of two; a damaged one is refused with one warning, or fails the tile it damages alone.
@Suite(.serialized) struct ObjectStoreTIFFFaultTests {
    /// The GETs of `key` (not the listings) the proxy has passed.
    private func gets(_ proxy: FaultProxy, _ key: String) -> Int {
        proxy.requests.filter { $0.hasPrefix("GET ") && $0.contains("/imgs/\(key) ") }.count
    }

    @Test func aCOGLayoutOpensWithOneGETAndEachTileIsOneMore() async throws {
        let bucket = try await BucketTIFFFixture.make("tiff-cost")
        let proxy = try await FaultProxy(upstream: bucket.gateway.endpoint)
        defer { Task { await proxy.close() } }
        try await bucket.withServer(bucket.configuration(endpoint: proxy.origin)) { server in
            #expect(try fetch(server, "/api/images").text.contains("\"name\":\"remote/cog\""))
            #expect(gets(proxy, "remote/cog.tif") == 1, "\(proxy.requests)")
            // vips writes each directory after its level's tiles: a few more, said here as measured.
            #expect((2...6).contains(gets(proxy, "remote/photo.tif")), "\(proxy.requests)")
            for (column, row) in [(0, 0), (3, 2), (4, 1)] {
                let before = gets(proxy, "remote/cog.tif")
                let tile = try fetch(server, "/images/remote/cog_files/11/\(column)_\(row).jpg")
                #expect(tile.status == 200 && tile.header("X-Cache") == "miss" && gets(proxy, "remote/cog.tif") == before + 1)
                #expect(try fetch(server, "/images/remote/cog_files/11/\(column)_\(row).jpg").header("X-Cache") == "hit")
            }
            // A made tile reads the stored tiles it covers, all at once: four for a tile of the level below.
            let before = gets(proxy, "remote/cog.tif")
            #expect(try fetch(server, "/images/remote/cog_files/10/0_0.jpg").status == 200)
            #expect(gets(proxy, "remote/cog.tif") - before <= 4)
        }
    }

    @Test func aReplacedTIFFIsANewVersionNeverAMix() async throws {
        let bucket = try await BucketTIFFFixture.make("tiff-replaced")
        let other = try await blocking { () throws -> PyramidFixture in
            let other = try PyramidFixture()
            try other.addVipsTIFF(
                "photo.tif", picture: BucketTIFFFixture.picture,
                options: ["--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid", "--compression", "jpeg", "--Q", "40"])
            return other
        }
        try await bucket.withServer(bucket.configuration()) { server in
            let list = try fetch(server, "/api/images").text
            let oldVersion = try #require(list.firstRange(of: "/images/remote/photo@").map { String(list[$0.upperBound...].prefix(12)) })
            let old = try fetch(server, "/images/remote/photo_files/11/0_0.jpg")
            #expect(old.status == 200)
            try await BucketTIFFFixture.upload(other.root + "/photo.tif", as: "imgs/remote/photo.tif", to: bucket.client)
            // The old index's ranges would now read the new object's bytes: refused (412) until the next rescan.
            let stale = try fetch(server, "/images/remote/photo_files/11/1_0.jpg")
            #expect(stale.status == 503 && stale.header("Retry-After") == "1", "\(stale.status)")
            let changes = await server.rescan()
            #expect(changes.added == 1 && changes.removed == 1)
            let fresh = try fetch(server, "/images/remote/photo_files/11/0_0.jpg")
            let stored = try TIFFPyramid(path: other.root + "/photo.tif").jpegTile(level: 0, column: 0, row: 0)
            #expect(fresh.status == 200 && fresh.body == stored)
            #expect(fresh.body != old.body && fresh.header("ETag") != old.header("ETag"))
            #expect(try fetch(server, "/images/remote/photo@\(oldVersion)_files/11/1_0.jpg").status == 404)
            #expect(try fetch(server, "/images/remote/lossless_files/11/0_0.jpg").status == 200, "the others untouched")
        }
    }

    /// A TIFF whose first directory lies past its end is refused with one warning, the others served; one whose tile
    /// index points past its end is served but for that tile (500); neither stops the server or waits.
    @Test func damagedTIFFsAreContainedAsOnDisk() async throws {
        let bucket = try await BucketTIFFFixture.make("tiff-damage")
        let cog = [UInt8](try Data(contentsOf: URL(fileURLWithPath: bucket.fixture.root + "/cog.tif")))
        var broken = ClassicTIFF(cog)
        broken.firstDirectory = cog.count + 8
        var lying = ClassicTIFF(cog)
        let offsets = try #require(lying.longValues(of: 324))
        lying.setUInt32(UInt32(cog.count + 100), at: offsets.offset)  // level 0's tile (0, 0)
        _ = try await bucket.client.put("imgs/broken.tif", body: ByteBuffer(bytes: broken.bytes))
        _ = try await bucket.client.put("imgs/lying.tif", body: ByteBuffer(bytes: lying.bytes))
        let recorder = LogRecorder(level: .debug)
        var configuration = bucket.configuration()
        configuration.logger = recorder.logger
        try await bucket.withServer(configuration) { server in
            let list = try fetch(server, "/api/images").text
            #expect(!list.contains("\"name\":\"broken\"") && list.contains("\"name\":\"lying\"") && list.contains("\"name\":\"remote/cog\""))
            let refusals = recorder.lines.filter { $0.contains("imgs/broken.tif") }
            #expect(refusals.count == 1 && refusals[0].hasPrefix("Not serving s3://"), "\(recorder.lines)")
            let damaged = try fetch(server, "/images/lying_files/11/0_0.jpg")
            #expect(damaged.status == 500, "\(damaged.status)")
            #expect(try fetch(server, "/images/lying_files/11/1_0.jpg").status == 200)
            _ = await server.rescan()
            #expect(recorder.lines.filter { $0.contains("imgs/broken.tif") }.count == 1, "refused until it changes")
        }
    }
}
