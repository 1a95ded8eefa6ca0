import Foundation
import Testing

/// `tiler info` on what a pathologist has: a slide (what OpenSlide reads of it), and the folder pyramid or SZI it was
/// sliced to (its tiles, and what it records of the slide). Through the built binary, on make_slides.py's slides.
@Suite struct InfoSlideCommandTests {
    /// The JSON object `tiler info --json` prints for `path`.
    static func json(_ path: String) throws -> [String: Any] {
        let result = try TilerProcess.run(["info", path, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test func aSlideShowsWhatOpenSlideReads() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        try SliceSlideCommandTests.makeSlides(fixtures)
        let vms = try TilerProcess.run(["info", fixtures.path("slides/vms/slide.vms")])
        #expect(vms.status == 0, "\(vms.stderr)")
        #expect(
            vms.stdout.contains("slide (OpenSlide's hamamatsu reader): 6 levels, objective 20×, 0.45 × 0.45 µm a pixel (0.46 × 0.35 mm)"),
            "\(vms.stdout)")
        #expect(vms.stdout.contains("  slide level 1: 512 × 384, downsample 2"))
        let svs = try TilerProcess.run(["info", fixtures.path("slides/pyramid.svs")])
        #expect(svs.stdout.contains("slide (OpenSlide's aperio reader): 2 levels, objective 40×, 0.25 × 0.25 µm a pixel"), "\(svs.stdout)")
        #expect(svs.stdout.contains("  associated images: label 240 × 120, macro 400 × 150, thumbnail 128 × 96"), "\(svs.stdout)")
        let mirax = try TilerProcess.run(["info", fixtures.path("slides/mirax/slide.mrxs")])
        #expect(mirax.stdout.contains("  scanned area: 768 × 512 at 256, 256"), "\(mirax.stdout) \(mirax.stderr)")
        let slide = try #require(try Self.json(fixtures.path("slides/pyramid.svs"))["slide"] as? [String: Any])
        #expect(slide["vendor"] as? String == "aperio" && slide["objectivePower"] as? Double == 40)
        #expect(slide["micronsPerPixel"] as? [String: Double] == ["x": 0.25, "y": 0.25])
        #expect((slide["levels"] as? [[String: Any]])?.count == 2)
        #expect((slide["associated"] as? [String: [String: Int]])?["label"] == ["width": 240, "height": 120])
        #expect((slide["properties"] as? [String: String])?["aperio.AppMag"] == "40")
        // A photograph is no slide.
        let picture = fixtures.path("picture.jpg")
        #expect(try TilerProcess.run(["sample", picture, "--size", "300x200", "--quiet"]).status == 0)
        #expect(try Self.json(picture)["slide"] == nil)
        #expect(!(try TilerProcess.run(["info", picture]).stdout.contains("slide")))
    }

    @Test func aFolderPyramidShowsItsTilesAndWhatItRecords() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        try SliceSlideCommandTests.makeSlides(fixtures)
        #expect(try TilerProcess.run(["slice", fixtures.path("slides/vms/slide.vms"), "-o", fixtures.path("o"), "--quiet"]).status == 0)
        let descriptor = fixtures.path("o/slide.dzi")
        try FileManager.default.removeItem(atPath: fixtures.path("o/slide_files/10/3_2.jpg"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: fixtures.path("o/slide_files/10/notes.txt")))
        let info = try TilerProcess.run(["info", descriptor])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.hasPrefix("\(descriptor): Deep Zoom folder pyramid, 1024 × 768\n"), "\(info.stdout)")
        #expect(info.stdout.contains("with 24 of 25 tiles"))
        #expect(info.stdout.contains("vips-properties.xml, associated images macro, 1 other file (ignored)"), "\(info.stdout)")
        #expect(info.stdout.contains("  records: hamamatsu slide, objective 20×, 0.45 × 0.45 µm a pixel"), "\(info.stdout)")
        #expect(info.stdout.contains("  level 10: 1024 × 768, 4 × 3 tiles (1 missing)"))
        let json = try Self.json(descriptor)
        #expect(json["container"] as? String == "folder" && json["tiles"] as? Int == 24 && json["otherFiles"] as? Int == 1)
        let recorded = try #require(json["recorded"] as? [String: Any])
        #expect(recorded["vendor"] as? String == "hamamatsu" && recorded["micronsPerPixel"] as? [String: Double] == ["x": 0.45, "y": 0.45])
        // The SZI of the same slide records the same.
        #expect(try TilerProcess.run(["slice", fixtures.path("slides/vms/slide.vms"), "-o", fixtures.path("p/slide.szi"), "--quiet"]).status == 0)
        let archive = try TilerProcess.run(["info", fixtures.path("p/slide.szi")])
        // The VMS's map image is OpenSlide's `macro`.
        let holds = "25 of 25 tiles, vips-properties.xml and scan-properties.xml, associated images macro\n"
        #expect(archive.stdout.contains(holds), "\(archive.stdout)")
        // make_slides.py's Aperio slide keeps its label, macro and thumbnail.
        #expect(try TilerProcess.run(["slice", fixtures.path("slides/pyramid.svs"), "-o", fixtures.path("q/svs.szi"), "--quiet"]).status == 0)
        let svs = try TilerProcess.run(["info", fixtures.path("q/svs.szi")]).stdout
        #expect(svs.contains("scan-properties.xml, associated images label, macro, thumbnail\n"), "\(svs)")
        #expect(try Self.json(fixtures.path("q/svs.szi"))["associated"] as? [String] == ["label", "macro", "thumbnail"])
        #expect(archive.stdout.contains("  records: hamamatsu slide, objective 20×"))
        // What is not a descriptor, or has no tiles folder, is one line and a failure.
        try Data("<x/>".utf8).write(to: URL(fileURLWithPath: fixtures.path("bad.dzi")))
        let bad = try TilerProcess.run(["info", fixtures.path("bad.dzi")])
        #expect(bad.status != 0 && bad.stderr.hasPrefix("Error: not a Deep Zoom descriptor: ") && bad.stderr.split(separator: "\n").count == 1)
        try FileManager.default.copyItem(atPath: descriptor, toPath: fixtures.path("lonely.dzi"))
        let lonely = try TilerProcess.run(["info", fixtures.path("lonely.dzi")])
        #expect(lonely.status != 0 && lonely.stderr.contains("has no tiles folder"), "\(lonely.stderr)")
    }
}
