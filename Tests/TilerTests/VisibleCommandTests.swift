import Foundation
import TestSupport
import Testing

@Suite struct VisibleCommandTests {
    @Test func answersTheWorkedExample() throws {
        let result = try TilerProcess.run([
            "visible", "--size", "30000x20000", "--offset", "0,0", "--viewport", "1024x576", "--zoom", "0.25",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(json?["maxLevel"] as? Int == 15)
        #expect(json?["level"] as? Int == 13)
        #expect(json?["levelWidth"] as? Int == 7500)
        let tiles = json?["tiles"] as? [[String: Any]] ?? []
        // 4096 × 2304 image pixels at level 13 (one level pixel = 4 image pixels) → 1024 × 576 level pixels: 4 × 3 tiles.
        #expect(tiles.count == 12)
        #expect(tiles.allSatisfy { $0["level"] as? Int == 13 })
    }

    @Test func readsADZIFileAndAcceptsNegativeOffsets() throws {
        let folder = try TemporaryDirectory(prefix: "visible")
        let dzi = folder.url.appendingPathComponent("map.dzi")
        try Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <Image xmlns="http://schemas.microsoft.com/deepzoom/2008" Format="jpg" Overlap="1" TileSize="254">
              <Size Width="1000" Height="777"/>
            </Image>
            """.utf8
        ).write(to: dzi)
        let result = try TilerProcess.run([
            "visible", "--dzi", dzi.path, "--offset=-100,-50", "--viewport", "800x600", "--zoom", "1",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        #expect(json?["tileSize"] as? Int == 254)
        #expect(json?["overlap"] as? Int == 1)
        let rect = json?["visibleRect"] as? [String: Any]
        #expect(rect?["x"] as? Int == 0)
        #expect(rect?["width"] as? Int == 700)
        #expect(rect?["height"] as? Int == 550)
    }

    @Test(arguments: [
        (["--zoom", "0"], "zoom"),
        (["--zoom", "-1"], "zoom"),
        (["--zoom", "nan"], "zoom"),
        (["--zoom", "abc"], "zoom"),
        (["--viewport", "0x100"], "viewport"),
        (["--prefetch", "-1"], "prefetch"),
        (["--content-scale", "inf"], "content"),
    ])
    func badInputNamesTheParameter(extra: [String], word: String) throws {
        var arguments = ["visible", "--size", "1000x1000", "--offset", "0,0", "--viewport", "100x100", "--zoom", "1"]
        arguments += extra
        let result = try TilerProcess.run(arguments)
        #expect(result.status != 0)
        #expect(!result.signalled)
        #expect(result.stderr.lowercased().contains(word), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}
