import Foundation
import Testing
import TileGeometry
import TileServer

/// Requests that are exactly stored tiles: the URLs OpenSeadragon's IIIF tile source builds from info.json get the
/// stored tile bytes, with the tile's ETag and caching, like a tile fetch; rendered images have stable ETags and 304.
@Suite struct IIIFTileTests {
    /// A JPEG pyramid with odd sizes (a 1-pixel-wide edge tile at one level) and a small PNG one.
    static func fixture() throws -> PyramidFixture {
        let fixture = try PyramidFixture()
        try fixture.addImagePyramid("wide", image: TestPicture.make(width: 513, height: 257), tileSize: 128, format: "jpg")
        try fixture.addImagePyramid("small", image: TestPicture.make(width: 100, height: 80), tileSize: 128, format: "png")
        return fixture
    }

    /// The region and size OpenSeadragon 5's `IIIFTileSource.getTileUrl` requests for tile (`x`, `y`) of `level`,
    /// for an Image API 3 service (its arithmetic, transcribed).
    static func openSeadragonPath(width: Int, height: Int, tileSize: Int, maxLevel: Int, level: Int, x: Int, y: Int) -> String {
        let scale = pow(0.5, Double(maxLevel - level))
        let levelWidth = Int((Double(width) * scale).rounded(.up))
        let levelHeight = Int((Double(height) * scale).rounded(.up))
        let iiifTileSize = Int((Double(tileSize) / scale).rounded())
        if levelWidth < tileSize && levelHeight < tileSize {
            let size = levelWidth == width && levelHeight == height ? "max" : "\(levelWidth),\(levelHeight)"
            return "full/\(size)"
        }
        let tileX = x * iiifTileSize
        let tileY = y * iiifTileSize
        let tileW = min(iiifTileSize, width - tileX)
        let tileH = min(iiifTileSize, height - tileY)
        let region = x == 0 && y == 0 && tileW == width && tileH == height ? "full" : "\(tileX),\(tileY),\(tileW),\(tileH)"
        let sizeW = min(tileSize, levelWidth - x * tileSize)
        let sizeH = min(tileSize, levelHeight - y * tileSize)
        let size = sizeW == width && sizeH == height ? "max" : "\(sizeW),\(sizeH)"
        return "\(region)/\(size)"
    }

    @Test func openSeadragonTileURLsServeTheStoredTiles() async throws {
        let fixture = try Self.fixture()
        try await withInProcessServer(fixture) { server in
            let info = try #require(try await fetch(server, "/iiif/3/wide/info.json").json() as? [String: Any])
            let tiles = try #require((info["tiles"] as? [[String: Any]])?.first)
            let tileSize = try #require(tiles["width"] as? Int)
            let factors = try #require(tiles["scaleFactors"] as? [Int])
            let maxLevel = Int(log2(Double(factors.max()!)).rounded())
            let pyramid = Pyramid(width: 513, height: 257, tileSize: 128)
            #expect(tileSize == 128 && maxLevel == pyramid.maxLevel)
            var served = 0
            for level in 0...maxLevel {
                let grid = pyramid.grid(level)
                for column in 0..<grid.columns {
                    for row in 0..<grid.rows {
                        let path = Self.openSeadragonPath(
                            width: 513, height: 257, tileSize: tileSize, maxLevel: maxLevel, level: level, x: column, y: row)
                        let response = try await fetch(server, "/iiif/3/wide/\(path)/0/default.jpg")
                        // At a 1-pixel edge, a tile of the next finer level can have the same frame and size: the
                        // request names both, and the finer one is served.
                        let (l, c, r) = Self.finestTile(like: (level, column, row), in: pyramid)
                        let tile = try await fetch(server, "/images/wide_files/\(l)/\(c)_\(r).jpg")
                        #expect(response.status == 200, "\(path)")
                        #expect(response.body == (try fixture.tileBytes("wide", level: level, column: column, row: row, format: "jpg")), "\(path)")
                        #expect(response.body == tile.body)
                        #expect(response.header("ETag") == tile.header("ETag"), "\(path) vs \(l)/\(c)_\(r)")
                        #expect(response.header("Cache-Control") == "no-cache")
                        #expect(response.header("X-Cache") != nil, "\(path) was not served as a stored tile")
                        #expect(response.header("Link")?.contains(";rel=\"canonical\"") == true)
                        served += 1
                    }
                }
            }
            #expect(served == 31)
        }
    }

    /// The tile of the finest level with the same frame and size as tile `tile`.
    static func finestTile(like tile: (Int, Int, Int), in pyramid: Pyramid) -> (Int, Int, Int) {
        let frame = pyramid.tileFrame(level: tile.0, column: tile.1, row: tile.2)
        let rect = pyramid.tileRect(level: tile.0, column: tile.1, row: tile.2)
        var best = tile
        for level in tile.0...pyramid.maxLevel {
            let span = pyramid.tileSize << (pyramid.maxLevel - level)
            guard frame.x % span == 0, frame.y % span == 0 else { continue }
            let (column, row) = (frame.x / span, frame.y / span)
            let grid = pyramid.grid(level)
            guard column < grid.columns, row < grid.rows else { continue }
            let candidate = pyramid.tileRect(level: level, column: column, row: row)
            if pyramid.tileFrame(level: level, column: column, row: row) == frame && candidate.width == rect.width && candidate.height == rect.height
            {
                best = (level, column, row)
            }
        }
        return best
    }

    @Test func olderWidthOnlyURLsAndListedSizesAreStoredTilesToo() async throws {
        let fixture = try Self.fixture()
        try await withInProcessServer(fixture) { server in
            let tile = try fixture.tileBytes("wide", level: 10, column: 4, row: 2, format: "jpg")
            #expect(try await fetch(server, "/iiif/3/wide/512,256,1,1/1,/0/default.jpg").body == tile)
            #expect(
                try await fetch(server, "/iiif/3/wide/0,0,256,256/128,/0/default.jpg").body
                    == (try fixture.tileBytes("wide", level: 9, column: 0, row: 0, format: "jpg")))
            let info = try #require(try await fetch(server, "/iiif/3/small/info.json").json() as? [String: Any])
            let sizes = try #require(info["sizes"] as? [[String: Int]])
            let pyramid = Pyramid(width: 100, height: 80, tileSize: 128)
            #expect(sizes.count == pyramid.levelCount)
            for (level, size) in sizes.enumerated() {
                let response = try await fetch(server, "/iiif/3/small/full/\(size["width"]!),\(size["height"]!)/0/default.png")
                #expect(response.body == (try fixture.tileBytes("small", level: level, column: 0, row: 0, format: "png")))
            }
            #expect(
                try await fetch(server, "/iiif/3/small/full/max/0/default.png").body
                    == (try fixture.tileBytes("small", level: 7, column: 0, row: 0, format: "png")))
        }
    }

    @Test func otherFormatsQualitiesAndRotationsOfATileAreRendered() async throws {
        let fixture = try Self.fixture()
        try await withInProcessServer(fixture) { server in
            let stored = try fixture.tileBytes("small", level: 7, column: 0, row: 0, format: "png")
            for path in ["full/max/0/default.jpg", "full/max/0/gray.png", "full/max/90/default.png", "full/max/!0/default.png"] {
                let response = try await fetch(server, "/iiif/3/small/\(path)")
                #expect(response.status == 200 && response.header("X-Cache") == nil && response.body != stored, "\(path)")
            }
            let color = try await fetch(server, "/iiif/3/small/full/max/0/color.png")
            #expect(try TestPicture.decode(color.body) == (try TestPicture.decode(stored)))
        }
    }

    @Test func conditionalRequestsGet304() async throws {
        let fixture = try Self.fixture()
        var etags: [String] = []
        for _ in 0..<2 {
            try await withInProcessServer(fixture) { server in
                let tilePath = "/iiif/3/wide/0,0,128,128/128,128/0/default.jpg"
                let tileETag = try #require(try await fetch(server, tilePath).header("ETag"))
                let tileAgain = try await fetch(server, tilePath, headers: ["If-None-Match: \(tileETag)"])
                #expect(tileAgain.status == 304 && tileAgain.body.isEmpty && tileAgain.header("ETag") == tileETag)
                let renderedPath = "/iiif/3/wide/10,20,300,200/150,/90/gray.jpg"
                let rendered = try await fetch(server, renderedPath)
                let etag = try #require(rendered.header("ETag"))
                #expect(try await fetch(server, renderedPath).header("ETag") == etag)
                let again = try await fetch(server, renderedPath, headers: ["If-None-Match: W/\"x\", \(etag)"])
                #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == etag)
                #expect(again.header("Link") == rendered.header("Link"))
                #expect(try await fetch(server, renderedPath, headers: ["If-None-Match: \"other\""]).status == 200)
                #expect(try await fetch(server, "/iiif/3/wide/10,20,300,200/150,/90/default.jpg").header("ETag") != etag)
                etags.append(etag)
            }
        }
        #expect(etags[0] == etags[1])
    }
}
