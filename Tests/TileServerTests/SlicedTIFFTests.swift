import Foundation
import ImageCodecs
import Slicing
import Testing
import TileGeometry

@testable import TileServer

/// A pyramidal TIFF written by `tiler slice --container tiff`, served in place: every full interior tile of every
/// stored level passed through as stored (its sRGB profile needs no conversion), edge tiles and the levels below
/// one tile made, all of them the pixels the folder layout's tiles have.
@Suite struct SlicedTIFFTests {
    @Test func interiorTilesArePassedThroughAndMatchTheFolderLayout() async throws {
        let fixture = try PyramidFixture()
        let picture = TestPicture.make(width: 1100, height: 700)
        let source = fixture.base + "/picture.png"
        try Data(try PNGEncoder().encode(picture)).write(to: URL(fileURLWithPath: source))
        for container in [PyramidContainer.tiff, .folder] {
            var options = TileFormat.jpeg(quality: 85).sliceOptions()
            options.container = container
            options.threads = 2
            _ = try PyramidBuilder(options: options).slice(try ImageDecoder.open(path: source), into: fixture.base, name: "made")
        }
        try FileManager.default.moveItem(atPath: fixture.base + "/made.tif", toPath: fixture.root + "/made.tif")
        let stored = try TIFFPyramid(path: fixture.root + "/made.tif")
        try await withServer(fixture) { server in
            let geometry = Pyramid(width: 1100, height: 700, tileSize: 256, overlap: 0)
            var passed = 0
            for level in (geometry.maxLevel - 2)...geometry.maxLevel {
                let grid = geometry.grid(level)
                for row in 0..<grid.rows {
                    for column in 0..<grid.columns {
                        let response = try fetch(server, "/images/made_files/\(level)/\(column)_\(row).jpg")
                        #expect(response.status == 200)
                        let rect = geometry.tileRect(level: level, column: column, row: row)
                        let folderTile = [UInt8](
                            try Data(contentsOf: URL(fileURLWithPath: "\(fixture.base)/made_files/\(level)/\(column)_\(row).jpg")))
                        if rect.width == 256 && rect.height == 256 {
                            // Passed through: the stored bytes, tagged as such, and the very pixels of the folder's tile.
                            #expect(response.body == (try stored.jpegTile(level: geometry.maxLevel - level, column: column, row: row)))
                            #expect(response.header("ETag")?.hasSuffix("p\"") == true, "\(level)/\(column)_\(row)")
                            #expect(try decodeImage(response.body) == (try decodeImage(folderTile)))
                            passed += 1
                        } else {
                            // Made: the stored (padded) tile decoded, cropped and encoded again — two JPEG generations at
                            // Q85 against the folder's one, on a detailed picture: within 6 levels on average.
                            let difference = meanDifference(try decodeImage(response.body), try decodeImage(folderTile))
                            #expect((difference ?? 99) < 6, "edge tile \(level)/\(column)_\(row)")
                        }
                    }
                }
            }
            #expect(passed == 8 + 2 + 0)
            let small = try fetch(server, "/images/made_files/3/0_0.jpg")
            #expect(small.status == 200 && small.header("ETag")?.hasSuffix("m\"") == true)
        }
    }

    /// Slices `picture` into `ROOT/made.tif` and a folder `made` beside ROOT, both with `format`.
    static func slice(_ picture: PixelBuffer, format: TileFormat, in fixture: PyramidFixture) throws {
        let source = fixture.base + "/picture.png"
        try Data(try PNGEncoder().encode(picture)).write(to: URL(fileURLWithPath: source))
        for container in [PyramidContainer.tiff, .folder] {
            var options = format.sliceOptions()
            options.container = container
            options.threads = 2
            _ = try PyramidBuilder(options: options).slice(try ImageDecoder.open(path: source), into: fixture.base, name: "made")
        }
        try FileManager.default.moveItem(atPath: fixture.base + "/made.tif", toPath: fixture.root + "/made.tif")
    }

    @Test func deflateTilesWithAlphaAreServedAsTheFolderLayoutsPixels() async throws {
        let fixture = try PyramidFixture()
        // Alpha that varies from pixel to pixel (zero among it), so that halving weights colours by it.
        var picture = TestPicture.make(width: 1100, height: 700, channels: 4)
        for index in 0..<(picture.width * picture.height) { picture.bytes[4 * index + 3] = UInt8((index * 37 + index / 1100 * 11) % 256) }
        try Self.slice(picture, format: .png(), in: fixture)
        try await withServer(fixture) { server in
            let geometry = Pyramid(width: 1100, height: 700, tileSize: 256, overlap: 0)
            // Every level: the stored ones (down to the first in one tile) made from lossless tiles, every pixel and
            // alpha kept; those below halved as `tiler slice` halves (colours weighted by alpha).
            for level in 0...geometry.maxLevel {
                let grid = geometry.grid(level)
                for row in 0..<grid.rows {
                    for column in 0..<grid.columns {
                        let response = try fetch(server, "/images/made_files/\(level)/\(column)_\(row).png")
                        #expect(response.status == 200 && response.header("Content-Type") == "image/png")
                        let folderTile = [UInt8](
                            try Data(contentsOf: URL(fileURLWithPath: "\(fixture.base)/made_files/\(level)/\(column)_\(row).png")))
                        #expect(try decodeImage(response.body) == (try decodeImage(folderTile)), "\(level)/\(column)_\(row)")
                    }
                }
            }
        }
    }

    /// A picture that fits in one tile makes a TIFF of one level: served, every level the folder's pixels within the
    /// second JPEG generation.
    @Test func aTIFFOfOneLevelIsServed() async throws {
        let fixture = try PyramidFixture()
        try Self.slice(TestPicture.make(width: 200, height: 150), format: .jpeg(quality: 85), in: fixture)
        #expect(try TIFFPyramid(path: fixture.root + "/made.tif").levels.count == 1)
        try await withServer(fixture) { server in
            let geometry = Pyramid(width: 200, height: 150, tileSize: 256, overlap: 0)
            for level in 0...geometry.maxLevel {
                let response = try fetch(server, "/images/made_files/\(level)/0_0.jpg")
                #expect(response.status == 200, "level \(level)")
                let folderTile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(fixture.base)/made_files/\(level)/0_0.jpg")))
                #expect((meanDifference(try decodeImage(response.body), try decodeImage(folderTile)) ?? 99) < 6, "level \(level)")
            }
        }
    }

    @Test func webpTilesAreServedMadeFromTheirPixels() async throws {
        let fixture = try PyramidFixture()
        try Self.slice(TestPicture.make(width: 1100, height: 700), format: .webp(quality: 90), in: fixture)
        try await withServer(fixture) { server in
            for (level, column, row) in [(11, 1, 1), (11, 4, 2), (10, 0, 0), (9, 0, 0)] {
                let response = try fetch(server, "/images/made_files/\(level)/\(column)_\(row).jpg")
                #expect(response.status == 200 && response.header("Content-Type") == "image/jpeg")
                // Made (no WebP pass-through into a JPEG pyramid): WebP at 90 (4:2:0) then JPEG at 85, two lossy
                // generations on a detailed picture, against the folder's one WebP: within 8 levels on average.
                let folderTile = [UInt8](
                    try Data(contentsOf: URL(fileURLWithPath: "\(fixture.base)/made_files/\(level)/\(column)_\(row).webp")))
                let difference = meanDifference(try decodeImage(response.body), try decodeImage(folderTile))
                #expect((difference ?? 99) < 8, "\(level)/\(column)_\(row)")
                #expect(response.header("ETag")?.hasSuffix("m\"") == true)
            }
        }
    }
}
