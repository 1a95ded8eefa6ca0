import Foundation
import ImageCodecs
import TestSupport
import Testing
import TileGeometry

@testable import TileServer

/// IIIF images over pyramids that lack tiles, as `vips dzsave --skip-blanks` writes them (the tiles equal to its
/// white background left out): the missing tiles render as that white, not as a 500; a tile request for one is still
/// a 404.
@Suite struct IIIFMissingTileTests {
    static let source = TestPicture.make(width: 700, height: 500)

    /// `source` with the finest level's tiles `removed` (128-pixel tiles) painted white.
    static func whitened(_ removed: [(column: Int, row: Int)], pyramid: Pyramid) -> [Double] {
        var bytes = source.bytes
        for tile in removed {
            let rect = pyramid.tileRect(level: pyramid.maxLevel, column: tile.column, row: tile.row)
            for y in rect.y..<rect.maxY {
                for x in rect.x..<rect.maxX {
                    for channel in 0..<3 { bytes[(y * source.width + x) * 3 + channel] = 255 }
                }
            }
        }
        return bytes.map(Double.init)
    }

    @Test func missingTilesOfAFolderPyramidRenderWhite() async throws {
        let fixture = try PyramidFixture()
        try fixture.addImagePyramid("photo", image: Self.source, tileSize: 128, format: "png")
        let pyramid = DZIDescriptor(width: 700, height: 500, tileSize: 128, overlap: 0, format: "png").pyramid
        // The first tile of a band, one inside another, and the whole last band.
        let removed = [(0, 0), (3, 2)] + (0..<6).map { ($0, 3) }
        for (column, row) in removed {
            try FileManager.default.removeItem(atPath: "\(fixture.root)/photo_files/\(pyramid.maxLevel)/\(column)_\(row).png")
        }
        try await withInProcessServer(fixture) { server in
            let response = try await fetch(server, "/iiif/3/photo/full/max/0/default.png")
            #expect(response.status == 200, "\(response.text)")
            let pixels = try TestPicture.decode(response.body)
            #expect(pixels.width == 700 && pixels.height == 500 && pixels.pixelFormat == .rgb, "the image's channels, not the fill's")
            let reference = Self.whitened(removed.map { (column: $0.0, row: $0.1) }, pyramid: pyramid)
            #expect(TestPicture.meanAbsoluteDifference(pixels, reference) == 0)
            // A region wholly inside a missing tile is white throughout.
            let inside = try TestPicture.decode(try await fetch(server, "/iiif/3/photo/400,260,60,60/max/0/default.png").body)
            #expect(inside.bytes.allSatisfy { $0 == 255 } && inside.width == 60)
            #expect(try await fetch(server, "/images/photo_files/\(pyramid.maxLevel)/3_2.png").status == 404)
        }
    }

    @Test func vipsSkipBlanksPyramidsRender() async throws {
        let fixture = try PyramidFixture()
        let made = try await blocking { () throws -> [ExternalTool.Outcome] in
            let picture = fixture.base + "/picture.png"
            try Data(try PNGEncoder().encode(Self.source)).write(to: URL(fileURLWithPath: picture))
            return [
                try ExternalTool.run("/usr/bin/vips", ["black", fixture.base + "/canvas.v", "1400", "1000", "--bands", "3"]),
                try ExternalTool.run("/usr/bin/vips", ["invert", fixture.base + "/canvas.v", fixture.base + "/white.v"]),
                try ExternalTool.run("/usr/bin/vips", ["insert", fixture.base + "/white.v", picture, fixture.base + "/page.v", "0", "0"]),
                try ExternalTool.run(
                    "/usr/bin/vips",
                    ["dzsave", fixture.base + "/page.v", fixture.root + "/page.szi", "--skip-blanks", "0", "--tile-size", "256", "--overlap", "0"]),
            ]
        }
        #expect(made.allSatisfy { $0.status == 0 }, "\(made.map(\.errors))")
        try await withInProcessServer(fixture) { server in
            // The picture's area: its tiles are there.
            let picture = try TestPicture.decode(try await fetch(server, "/iiif/3/page/0,0,700,500/max/0/default.png").body)
            let reference = TestPicture.areaAverage(Self.source, region: PixelRect(x: 0, y: 0, width: 700, height: 500), width: 700, height: 500)
            #expect(TestPicture.meanAbsoluteDifference(picture, reference) < 6, "JPEG tiles at libvips' quality 75")
            // The page below and beside it: left out by libvips, white here.
            let blank = try await fetch(server, "/iiif/3/page/800,600,600,400/max/0/default.png")
            #expect(blank.status == 200, "\(blank.text)")
            #expect(try TestPicture.decode(blank.body).bytes.allSatisfy { $0 == 255 })
            let whole = try await fetch(server, "/iiif/3/page/full/!350,350/0/default.jpg")
            #expect(whole.status == 200, "\(whole.text)")
        }
    }
}
