import Foundation
import ImageCodecs
import NIOCore
import TestSupport
import Testing
import TileGeometry

@testable import TileServer
@testable import TileSources

/// Pyramidal TIFFs served in place (made by the real `vips tiffsave`), in-process: found beside folder pyramids,
/// a Deep Zoom descriptor made for each, stored JPEG tiles passed through byte for byte, every other tile made from the
/// stored pixels as `tiler slice` would make it, IIIF and the visible-rect query on them, and files that are not
/// pyramids left out.
@Suite(.serialized) struct StoredPyramidTests {
    static let picture = TestPicture.make(width: 1100, height: 700)

    static func makeFixture() throws -> PyramidFixture {
        let fixture = try PyramidFixture()
        try fixture.addVipsTIFF(
            "photo.tif", picture: picture,
            options: ["--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid", "--compression", "jpeg", "--Q", "90"])
        try fixture.addVipsTIFF(
            "lossless.tiff", picture: picture,
            options: ["--tile", "--tile-width", "512", "--tile-height", "512", "--pyramid", "--compression", "deflate"])
        try fixture.addVipsTIFF(
            "sub.ome.tif", picture: picture, options: ["--tile", "--pyramid", "--subifd", "--bigtiff", "--compression", "deflate"])
        try fixture.addVipsTIFF("striped.tif", picture: picture, options: [])
        try fixture.addVipsTIFF("flat.tif", picture: picture, options: ["--tile"])
        try fixture.addVipsTIFF("wide.tif", picture: TestPicture.make(width: 4200, height: 64), options: ["--tile"])
        try fixture.addPyramid("collide", width: 300, height: 200)
        try fixture.addVipsTIFF("collide.tif", picture: picture, options: ["--tile", "--pyramid"])
        try Data(repeating: 0x49, count: 4096).write(to: URL(fileURLWithPath: fixture.root + "/garbage.svs"))
        return fixture
    }

    static func withServer(_ body: (EmbeddedConnection, PyramidFixture) async throws -> Void) async throws {
        // vips runs as a child process: waited for on a Dispatch thread, not on the cooperative pool the other tests need.
        let fixture = try await blocking { try Self.makeFixture() }
        try await EmbeddedConnection.with(testConfiguration(root: fixture.root)) { try await body($0, fixture) }
    }

    static func get(_ connection: EmbeddedConnection, _ target: String) async throws -> (status: Int, bytes: [UInt8]) {
        let client = InProcessConnection(connection)
        try await client.request(target)
        let response = try await client.readResponse()
        return (response.status, response.body)
    }

    @Test func pyramidalTIFFsAreListedBesideFolderPyramids() async throws {
        try await Self.withServer { connection, _ in
            let names = connection.runtime.context.catalog.images.map(\.name).sorted()
            // One tiled level is served up to 4096 pixels a side (each coarse tile decodes all of it); a wider one is not.
            #expect(names == ["collide", "flat", "lossless", "photo", "sub"], "striped, too large single-level and garbage files are not served")
            let collide = try #require(connection.runtime.context.catalog.images.first { $0.name == "collide" })
            #expect(collide.source is FolderTiles, "a .dzi wins its name over a TIFF")
            let descriptor = try await Self.get(connection, "/images/photo.dzi")
            let xml = String(decoding: descriptor.bytes, as: UTF8.self)
            #expect(descriptor.status == 200 && xml.contains("TileSize=\"256\"") && xml.contains("Overlap=\"0\"") && xml.contains("Format=\"jpg\""))
            #expect(xml.contains("Width=\"1100\" Height=\"700\""))
        }
    }

    @Test func storedJPEGTilesArePassedThroughByteForByte() async throws {
        try await Self.withServer { connection, fixture in
            let stored = try TIFFPyramid(path: fixture.root + "/photo.tif")
            let top = DZIDescriptor(width: 1100, height: 700, tileSize: 256, overlap: 0, format: "jpg").pyramid.maxLevel
            for (column, row) in [(0, 0), (1, 1), (3, 1)] {
                let served = try await Self.get(connection, "/images/photo_files/\(top)/\(column)_\(row).jpg")
                #expect(served.status == 200)
                #expect(served.bytes == (try stored.jpegTile(level: 0, column: column, row: row)), "tile \(column)_\(row)")
                #expect(served.bytes.starts(with: [0xFF, 0xD8]))
            }
            // The file was just written: its tiles are in the page cache, so they are read on the event loop, not waited for.
            #expect(try stored.jpegTileIfCached(level: 0, column: 2, row: 1) == (try stored.jpegTile(level: 0, column: 2, row: 1)))
            #expect(connection.runtime.context.tiles.eventLoopReadCount >= 1)
        }
    }

    @Test func otherTilesAreMadeAsTilerSliceWouldMakeThem() async throws {
        try await Self.withServer { connection, _ in
            let geometry = DZIDescriptor(width: 1100, height: 700, tileSize: 256, overlap: 0, format: "jpg").pyramid
            let levels = PyramidFixture.levels(of: Self.picture)
            // Lossless, 512-pixel stored tiles: no Deep Zoom tile is a stored tile; every one is made from stored pixels.
            for (level, column, row) in [
                (geometry.maxLevel, 0, 0), (geometry.maxLevel, 4, 2), (geometry.maxLevel - 1, 2, 1), (geometry.maxLevel - 3, 0, 0), (2, 0, 0),
                (0, 0, 0),
            ] {
                let served = try await Self.get(connection, "/images/lossless_files/\(level)/\(column)_\(row).jpg")
                #expect(served.status == 200, "\(level)/\(column)_\(row)")
                let expected = TestPicture.crop(levels[geometry.maxLevel - level], geometry.tileRect(level: level, column: column, row: row))
                let decoded = try decodeImage(served.bytes)
                let reference = try decodeImage(try JPEGEncoder(quality: 85).encode(expected))
                let difference = try #require(meanDifference(decoded, reference), "\(level)/\(column)_\(row): \(decoded.width)×\(decoded.height)")
                #expect(difference < 0.5, "\(level)/\(column)_\(row) differs from the slicer's by \(difference) on average")
            }
            // JPEG-stored levels: edge tiles (stored padded) are made; against the slicer's tile of the same pixels they
            // differ by the stored JPEG's loss only (within 2 levels on average).
            let edge = try await Self.get(connection, "/images/photo_files/\(geometry.maxLevel)/4_2.jpg")
            let expected = TestPicture.crop(levels[0], geometry.tileRect(level: geometry.maxLevel, column: 4, row: 2))
            let decoded = try decodeImage(edge.bytes)
            let sliced = try decodeImage(try JPEGEncoder(quality: 85).encode(expected))
            #expect(decoded.width == expected.width && decoded.height == expected.height)
            #expect((meanDifference(decoded, sliced) ?? 99) < 2)
        }
    }

    @Test func iiifAndTheVisibleRectQueryWorkOnStoredPyramids() async throws {
        try await Self.withServer { connection, _ in
            let info = try await Self.get(connection, "/iiif/3/sub/info.json")
            #expect(info.status == 200 && String(decoding: info.bytes, as: UTF8.self).contains("\"width\":1100"))
            let region = try await Self.get(connection, "/iiif/3/photo/100,100,600,400/300,/0/default.png")
            #expect(region.status == 200)
            let pixels = try decodeImage(region.bytes)
            #expect(pixels.width == 300 && pixels.height == 200)
            let visible = try await Self.get(connection, "/api/images/sub/visible?x=0&y=0&width=800&height=600&zoomScale=0.5")
            #expect(visible.status == 200 && String(decoding: visible.bytes, as: UTF8.self).contains("\"tiles\""))
        }
    }
}

/// Damaged pyramidal TIFFs never hurt the server: it starts, serves the good files, and answers every tile of a
/// damaged one with a status (a made tile from readable data, or 4xx/5xx), never a crash or a hang.
@Suite struct DamagedStoredPyramidTests {
    @Test func twentyDamagedFilesAndTheGoodOneStillServed() async throws {
        let fixture = try await blocking { () throws -> PyramidFixture in
            let fixture = try PyramidFixture()
            try Self.writeDamaged(into: fixture)
            return fixture
        }
        try await EmbeddedConnection.with(testConfiguration(root: fixture.root), Self.askEveryTile)
    }

    static func writeDamaged(into fixture: PyramidFixture) throws {
        try fixture.addVipsTIFF(
            "good.tif", picture: TestPicture.make(width: 900, height: 600),
            options: ["--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid", "--compression", "jpeg"])
        let good = try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/good.tif"))
        var generator = SplitMix64(seed: 31)
        for index in 0..<20 {
            var bytes = [UInt8](good)
            if index < 10 {
                bytes = Array(bytes.prefix(bytes.count * (index + 1) / 11))  // truncated
            } else {
                for _ in 0..<(index * 8) {  // bytes overwritten at random (tile data, offsets, directories)
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            try Data(bytes).write(to: URL(fileURLWithPath: fixture.root + "/damaged-\(index).tif"))
        }
    }

    static func askEveryTile(_ connection: EmbeddedConnection) async throws {
        let catalog = connection.runtime.context.catalog
        #expect(catalog.images.contains { $0.name == "good" })
        let geometry = DZIDescriptor(width: 900, height: 600, tileSize: 256, overlap: 0, format: "jpg").pyramid
        for image in catalog.images {
            for level in [geometry.maxLevel, geometry.maxLevel - 2, 0] {
                let grid = image.pyramid.grid(level)
                for column in 0..<grid.columns {
                    for row in 0..<grid.rows {
                        let answer = try await StoredPyramidTests.get(connection, "/images/\(image.name)_files/\(level)/\(column)_\(row).jpg")
                        #expect(
                            answer.status == 200 || (400..<600).contains(answer.status), "\(image.name) \(level)/\(column)_\(row): \(answer.status)")
                        if image.name == "good" { #expect(answer.status == 200) }
                    }
                }
            }
        }
        // A failed read left nothing in the cache: asking again fails the same way, it is not served as a tile.
        let good200 = try await StoredPyramidTests.get(connection, "/images/good_files/\(geometry.maxLevel)/1_1.jpg")
        #expect(good200.status == 200)
    }
}
