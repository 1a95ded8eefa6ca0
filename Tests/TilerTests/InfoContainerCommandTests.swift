import Foundation
import ImageCodecs
import TestSupport
import Testing

/// `tiler info` on the one-file pyramids: an SZI's levels and tiles, a pyramidal TIFF's stored levels and which of
/// them `tiler serve` passes through; a damaged SZI is one line and a non-zero exit.
@Suite struct InfoContainerCommandTests {
    @Test func describesAnSZIItsLevelsAndTiles() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.jpg", width: 700, height: 300, format: .jpeg(quality: 90))
        #expect(try TilerProcess.run(["slice", input, "-o", fixtures.path("pic.szi"), "--quiet"]).status == 0)
        let result = try TilerProcess.run(["info", fixtures.path("pic.szi"), "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["container"] as? String == "szi" && json["descriptor"] as? String == "pic/pic.dzi")
        #expect(json["width"] as? Int == 700 && json["tiles"] as? Int == 6 + 2 + 9 && json["passThrough"] as? Bool == true)
        let levels = try #require(json["levels"] as? [[String: Any]])
        #expect(levels.count == 11 && levels[10]["tiles"] as? Int == 6 && levels[10]["columns"] as? Int == 3)
        let text = try TilerProcess.run(["info", fixtures.path("pic.szi")])
        #expect(text.stdout.contains("SZI (stored ZIP)") && text.stdout.contains("17 of 17 tiles"), "\(text.stdout)")
    }

    @Test func aDamagedSZIIsOneLineAndAFailure() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.jpg", width: 300, height: 300, format: .jpeg())
        #expect(try TilerProcess.run(["slice", input, "-o", fixtures.path("pic.szi"), "--quiet"]).status == 0)
        let bytes = try fixtures.bytes("pic.szi")
        let cut = try fixtures.file("cut.szi", bytes: Array(bytes.prefix(bytes.count - 40)))
        let result = try TilerProcess.run(["info", cut])
        #expect(result.status != 0 && !result.signalled)
        #expect(result.stderr.contains("no end of central directory record"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func describesAPyramidalTIFFsStoredLevelsAndPassThrough() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.png", width: 1100, height: 700, format: .png(compressionLevel: 1))
        let tiff = fixtures.path("photo.tif")
        let made = try ExternalTool.run(
            "/usr/bin/vips", ["tiffsave", input, tiff, "--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid", "--compression", "jpeg"])
        #expect(made.status == 0, "\(made.errors)")
        let result = try TilerProcess.run(["info", tiff, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let stored = try #require(json["storedPyramid"] as? [String: Any])
        let levels = try #require(stored["levels"] as? [[String: Any]])
        #expect(levels.first?["width"] as? Int == 1100 && levels.first?["passThrough"] as? Bool == true)
        // vips halves rounding down: 1100 → 550 → 275 → 137, where Deep Zoom's level is 138 wide: made, not passed through.
        #expect(levels.map { $0["width"] as? Int } == [1100, 550, 275, 137])
        #expect(levels.map { $0["passThrough"] as? Bool } == [true, true, true, false])
    }
}
