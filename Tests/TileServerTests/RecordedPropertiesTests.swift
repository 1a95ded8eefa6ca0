import Foundation
import Slicing
import TestSupport
import Testing

@testable import TileServer
@testable import TileSources

/// What a folder pyramid or an SZI records of the slide it was sliced from (`vips-properties.xml`, the SZI form's
/// `scan-properties.xml`), whether `tiler slice` or `vips dzsave` wrote it: listed in `/api/images` as a slide's own
/// facts are (so the viewer draws a scale bar), the whole list at `/properties`; a damaged file is left out with one
/// log line, and the pyramid is served all the same.
@Suite struct RecordedPropertiesTests {
    static let recorded = PyramidProperties(
        width: 300, height: 200, bands: 3,
        slideProperties: [
            "openslide.vendor": "hamamatsu", "openslide.mpp-x": "0.2265", "openslide.mpp-y": "0.2275", "openslide.objective-power": "40",
            "openslide.bounds-x": "12", "openslide.bounds-y": "8", "openslide.bounds-width": "250", "openslide.bounds-height": "180",
            "hamamatsu.Comment": "Ürün <b> & \"x\"",
        ])

    /// The `/api/images` entry named `name` as JSON.
    static func entry(_ server: Server, _ name: String) throws -> [String: Any] {
        let list = try fetch(server, "/api/images")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.body)) as? [[String: Any]])
        return try #require(entries.first { $0["name"] as? String == name })
    }

    @Test func aFolderPyramidsRecordedPropertiesAreListedAndServed() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("sliced", width: 300, height: 200)
        try fixture.addPyramid("photo", width: 300, height: 200)
        try Self.recorded.vipsXML().write(toFile: fixture.root + "/sliced_files/vips-properties.xml", atomically: true, encoding: .utf8)
        try await withServer(fixture) { server in
            let sliced = try Self.entry(server, "sliced")
            #expect(sliced["vendor"] as? String == "hamamatsu" && sliced["objectivePower"] as? Double == 40)
            let mpp = try #require(sliced["micronsPerPixel"] as? [String: Double])
            #expect(mpp == ["x": 0.2265, "y": 0.2275])
            #expect(sliced["bounds"] as? [String: Int] == ["x": 12, "y": 8, "width": 250, "height": 180])
            #expect(sliced["properties"] as? String == "/api/images/sliced/properties")
            #expect(sliced["associated"] == nil, "a sliced pyramid keeps no associated images")
            let properties = try fetch(server, "/api/images/sliced/properties")
            #expect(properties.status == 200)
            let values = try #require(try JSONSerialization.jsonObject(with: Data(properties.body)) as? [String: String])
            #expect(values["hamamatsu.Comment"] == "Ürün <b> & \"x\"" && values["width"] == "300" && values.count == Self.recorded.entries.count)
            // A pyramid that records nothing lists no facts and has no properties.
            let photo = try Self.entry(server, "photo")
            #expect(photo["vendor"] == nil && photo["micronsPerPixel"] == nil && photo["properties"] == nil)
            #expect(try fetch(server, "/api/images/photo/properties").status == 404)
        }
    }

    @Test func vipsDzsavesSlidePyramidsShowTheSlidesFacts() async throws {
        let slide = SlideFixture.openslidePythonTests + "/small.svs"
        let fixture = try PyramidFixture()
        let made = try await blocking { () throws -> (ExternalTool.Outcome, ExternalTool.Outcome) in
            (
                try ExternalTool.run("/usr/bin/vips", ["dzsave", slide, fixture.root + "/folder"]),
                try ExternalTool.run("/usr/bin/vips", ["dzsave", slide, fixture.root + "/packed.szi"])
            )
        }
        #expect(made.0.status == 0 && made.1.status == 0, "\(made.0.errors) \(made.1.errors)")
        try await withServer(fixture) { server in
            for name in ["folder", "packed"] {
                let entry = try Self.entry(server, name)
                #expect(entry["vendor"] as? String == "aperio", "\(name): \(entry)")
                #expect(entry["micronsPerPixel"] as? [String: Double] == ["x": 0.499, "y": 0.499], "\(name)")
                #expect(entry["objectivePower"] as? Double == 20, "\(name)")
                let properties = try fetch(server, "/api/images/\(name)/properties")
                #expect(properties.status == 200 && properties.text.contains("\"aperio.AppMag\":\"20\""), "\(name): \(properties.text)")
            }
        }
    }

    @Test func keptAssociatedImagesAreListedAndServed() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("loose", width: 300, height: 200)
        try Self.recorded.vipsXML().write(toFile: fixture.root + "/loose_files/vips-properties.xml", atomically: true, encoding: .utf8)
        // A pyramid that records nothing is no sliced slide: an `associated` folder in it is not looked at.
        try fixture.addPyramid("plain", width: 300, height: 200)
        try FileManager.default.createDirectory(atPath: fixture.root + "/plain_files/associated", withIntermediateDirectories: true)
        let label = PyramidFixture.tileBytes(level: 1, column: 2, row: 3, count: 700)
        let macro = PyramidFixture.tileBytes(level: 4, column: 5, row: 6, count: 900)
        try FileManager.default.createDirectory(atPath: fixture.root + "/loose_files/associated", withIntermediateDirectories: true)
        try Data(label).write(to: URL(fileURLWithPath: fixture.root + "/loose_files/associated/label.jpg"))
        try Data(macro).write(to: URL(fileURLWithPath: fixture.root + "/loose_files/associated/macro.jpg"))
        try Data(label).write(to: URL(fileURLWithPath: fixture.root + "/plain_files/associated/label.jpg"))
        // Not kept images: another extension, a name no kind has, a symlink out of ROOT.
        try Data(label).write(to: URL(fileURLWithPath: fixture.root + "/loose_files/associated/notes.txt"))
        try Data(label).write(to: URL(fileURLWithPath: fixture.root + "/loose_files/associated/a b.jpg"))
        try FileManager.default.createSymbolicLink(atPath: fixture.root + "/loose_files/associated/escape.jpg", withDestinationPath: "/etc/hostname")
        try fixture.addArchive(
            "packed", width: 600, height: 400, tileBytes: 100,
            extra: [("packed/packed_files/associated/label.jpg", label), ("packed/packed_files/associated/bad name.jpg", macro)])
        try await withServer(fixture) { server in
            for name in ["loose", "packed"] {
                let entry = try Self.entry(server, name)
                let associated = try #require(entry["associated"] as? [String: String], "\(name): \(entry)")
                let kinds = name == "loose" ? ["escape", "label", "macro"] : ["label"]
                #expect(associated.keys.sorted() == kinds, "\(name)")
                let response = try fetch(server, "/api/images/\(name)/associated/label")
                #expect(response.status == 200 && response.header("Content-Type") == "image/jpeg" && response.body == label, "\(name)")
                #expect(try fetch(server, "/api/images/\(name)/associated/thumbnail").status == 404)
                let etag = try #require(response.header("ETag"))
                #expect(try fetch(server, "/api/images/\(name)/associated/label", headers: ["If-None-Match: \(etag)"]).status == 304)
            }
            #expect(try fetch(server, "/api/images/loose/associated/macro").body == macro)
            // A symlink out of ROOT is listed by name but never read.
            #expect(try fetch(server, "/api/images/loose/associated/escape").status == 404)
            #expect(try fetch(server, "/api/images/packed/associated/macro").status == 404)
            #expect(try Self.entry(server, "plain")["associated"] == nil)
            #expect(try fetch(server, "/api/images/plain/associated/label").status == 404)
        }
    }

    @Test func aTIFFsRecordedPropertiesAreRead() async throws {
        // `vips tiffsave --properties` writes dzsave's XML as the ImageDescription, as `tiler slice` does for a TIFF.
        let slide = SlideFixture.openslidePythonTests + "/small.svs"
        let fixture = try PyramidFixture()
        let made = try await blocking {
            try ExternalTool.run(
                "/usr/bin/vips",
                [
                    "tiffsave", slide, fixture.root + "/kept.tif", "--tile", "--pyramid", "--compression", "jpeg", "--tile-width", "256",
                    "--tile-height", "256", "--properties",
                ])
        }
        #expect(made.status == 0, "\(made.errors)")
        try await withServer(fixture) { server in
            let entry = try Self.entry(server, "kept")
            #expect(entry["vendor"] as? String == "aperio" && entry["objectivePower"] as? Double == 20, "\(entry)")
            #expect(entry["micronsPerPixel"] as? [String: Double] == ["x": 0.499, "y": 0.499], "the slide's figure, not the tags' rational")
            let properties = try fetch(server, "/api/images/kept/properties")
            #expect(properties.status == 200 && properties.text.contains("\"openslide.vendor\":\"aperio\""), "\(properties.text)")
        }
    }

    @Test func anSZIsScanPropertiesAloneGiveItsFacts() throws {
        let fixture = try PyramidFixture()
        try fixture.addArchive(
            "scanned", width: 600, height: 400, tileBytes: 100,
            extra: [("scanned/scan-properties.xml", Array(try #require(Self.recorded.scanXML()).utf8))])
        let catalog = ImageCatalog(root: fixture.root, maxDepth: 4, logger: LogRecorder(level: .trace).logger, fullWalkEvery: 1)
        catalog.rescan()
        let image = try #require(catalog.current.images["scanned"[...]])
        #expect(image.facts.vendor == "hamamatsu" && image.facts.micronsPerPixel?.x == 0.2265 && image.facts.objectivePower == 40)
        #expect(image.properties?["MicronsPerPixelY"] == "0.2275")
    }

    @Test(arguments: ["<image><properties>", "<html/>", String(repeating: "x", count: PyramidProperties.maxXMLBytes + 1)])
    func damagedPropertiesAreLeftOutWithOneLineAndThePyramidIsServed(text: String) throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("sliced", width: 300, height: 200)
        try fixture.addArchive(
            "packed", width: 600, height: 400, tileBytes: 100, extra: [("packed/packed_files/vips-properties.xml", Array(text.utf8))])
        try text.write(toFile: fixture.root + "/sliced_files/vips-properties.xml", atomically: true, encoding: .utf8)
        let recorder = LogRecorder(level: .trace)
        let catalog = ImageCatalog(root: fixture.root, maxDepth: 4, logger: recorder.logger, fullWalkEvery: 1)
        catalog.rescan()
        catalog.rescan()
        #expect(catalog.images.map(\.name).sorted() == ["packed", "sliced"])
        for name in ["packed", "sliced"] {
            let image = try #require(catalog.current.images[name[...]])
            #expect(image.recorded == nil && image.facts.micronsPerPixel == nil)
        }
        let lines = recorder.lines.filter { $0.contains("without its recorded properties") }
        // The archive's oversized entry is not read at all (not an error); the folder's is refused in one line.
        let expected = text.utf8.count > PyramidProperties.maxXMLBytes ? 1 : 2
        #expect(lines.count == expected, "\(lines)")
        #expect(lines.allSatisfy { !$0.contains("\n") })
    }
}
