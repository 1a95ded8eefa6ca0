import Foundation
import ImageCodecs
import Slicing
import TestSupport
import Testing

/// `tiler slice` keeps a slide's properties with its pyramid, as `vips dzsave` does: `NAME_files/vips-properties.xml`
/// in a folder and an SZI (and the SZI form's `scan-properties.xml`), the microns per pixel in a TIFF's resolution
/// tags; a photograph records nothing. Through the built binary, on openslide-python's Aperio test slide.
@Suite struct SliceSlidePropertiesCommandTests {
    static var smallSVS: String {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        return (environment["TILER_SLIDE_FIXTURES"] ?? cache + "/tiler/openslide-python-1.2.0") + "/tests/small.svs"
    }

    @Test func aSlicedSlideKeepsItsPropertiesInAFolder() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let result = try TilerProcess.run(["slice", Self.smallSVS, "-o", fixtures.path("o"), "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let xml = try Data(contentsOf: URL(fileURLWithPath: fixtures.path("o/small_files/vips-properties.xml")))
        let recorded = try PyramidProperties(xml: Array(xml))
        let slide = try Slide(path: Self.smallSVS)
        let level = slide.levels[0]
        #expect(recorded["width"] == String(level.width) && recorded["height"] == String(level.height) && recorded["bands"] == "3")
        #expect(recorded.values.filter { $0.key.contains(".") } == slide.properties, "every OpenSlide property, as OpenSlide reports it")
        #expect(recorded.micronsPerPixel?.x == 0.499 && recorded.vendor == "aperio")
    }

    @Test func aSlicedSlideKeepsItsPropertiesInAnSZI() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let archive = fixtures.path("small.szi")
        let result = try TilerProcess.run(["slice", Self.smallSVS, "-o", archive, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let listing = try ExternalTool.run("/usr/bin/unzip", ["-Z1", archive]).output
        let names = listing.split(separator: "\n").map(String.init)
        #expect(names.contains("small/small_files/vips-properties.xml") && names.contains("small/scan-properties.xml"))
        #expect(names.last == "small/small.dzi", "the descriptor comes last, as before")
        let scan = try ExternalTool.run("/usr/bin/unzip", ["-p", archive, "small/scan-properties.xml"]).output
        let read = try PyramidProperties(xml: Array(scan.utf8))
        #expect(read["Vendor"] == "aperio" && read["MicronsPerPixelX"] == "0.499" && read["ObjectiveMagnification"] == "20")
        #expect(read["ImageWidth"] == "16" && read["ImageHeight"] == "16")
        #expect(try ExternalTool.run("/usr/bin/unzip", ["-tq", archive]).output.contains("No errors"))
    }

    @Test func aSlicedSlidesTIFFRecordsItsMicronsPerPixelInEveryLevel() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        try SliceSlideCommandTests.makeSlides(fixtures)
        // make_slides.py's two-level Aperio slide: 2048 × 1536 at 0.25 µm a pixel.
        let tiff = fixtures.path("pyramid.tif")
        let result = try TilerProcess.run(["slice", fixtures.path("slides/pyramid.svs"), "-o", tiff, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let pyramid = try TIFFPyramid(path: tiff)
        let mpp = try #require(pyramid.tagMicronsPerPixel)
        #expect(abs(mpp.x - 0.25) < 1e-9 && abs(mpp.y - 0.25) < 1e-9, "\(mpp)")
        // Each reduced level's resolution is its own: half the pixels per centimetre of the level above.
        let info = try ExternalTool.run("/usr/bin/tiffinfo", [tiff]).output
        // The slide's properties are its ImageDescription, as `vips tiffsave --properties` writes them.
        let recorded = try #require(pyramid.imageDescription.flatMap { PyramidProperties(imageDescription: $0) })
        #expect(recorded.vendor == "aperio" && recorded.objectivePower == 40 && recorded["aperio.MPP"] == "0.2500")
        let described = try TilerProcess.run(["info", tiff]).stdout
        #expect(described.contains("  records: aperio slide, objective 40×, 0.25 × 0.25 µm a pixel (0.51 × 0.38 mm)"), "\(described)")
        let resolutions = info.split(separator: "\n").filter { $0.contains("Resolution:") }.map(String.init)
        #expect(
            resolutions == [
                "  Resolution: 40000, 40000 pixels/cm", "  Resolution: 20000, 20000 pixels/cm",
                "  Resolution: 10000, 10000 pixels/cm", "  Resolution: 5000, 5000 pixels/cm",
            ], "\(info)")
    }

    @Test func aSlicedSlideKeepsItsAssociatedImages() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        try SliceSlideCommandTests.makeSlides(fixtures)
        // make_slides.py's Aperio slide has a label, a macro image and a thumbnail.
        let slide = fixtures.path("slides/pyramid.svs")
        #expect(try TilerProcess.run(["slice", slide, "-o", fixtures.path("o"), "--quiet"]).status == 0)
        let kept = try FileManager.default.contentsOfDirectory(atPath: fixtures.path("o/pyramid_files/associated")).sorted()
        #expect(kept == ["label.jpg", "macro.jpg", "thumbnail.jpg"])
        let label = try ImageDecoder.decode(path: fixtures.path("o/pyramid_files/associated/label.jpg"))
        #expect(label.width == 240 && label.height == 120)
        // The same pixels OpenSlide reads, at JPEG quality 90.
        let reference = try Slide(path: slide).associatedRGB("label")
        let difference = zip(label.bytes, reference.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        #expect(Double(difference) / Double(reference.bytes.count) < 6, "a label's sharp print, at JPEG quality 90")
        #expect(try TilerProcess.run(["slice", slide, "-o", fixtures.path("p.szi"), "--quiet"]).status == 0)
        let names = try ExternalTool.run("/usr/bin/unzip", ["-Z1", fixtures.path("p.szi")]).output.split(separator: "\n")
        #expect(
            names.filter { $0.hasPrefix("p/p_files/associated/") } == [
                "p/p_files/associated/label.jpg", "p/p_files/associated/macro.jpg",
                "p/p_files/associated/thumbnail.jpg",
            ])
        // A TIFF keeps them as directories of their own after its levels.
        #expect(try TilerProcess.run(["slice", slide, "-o", fixtures.path("t.tif"), "--quiet"]).status == 0)
        let tiff = try TIFFPyramid(path: fixtures.path("t.tif"))
        #expect(tiff.levels.count == 4 && tiff.associatedImages.keys.sorted() == ["label", "macro", "thumbnail"])
        let described = try TilerProcess.run(["info", fixtures.path("t.tif")]).stdout
        #expect(described.contains("  associated images: label 240 × 120, macro 400 × 150, thumbnail 128 × 96"), "\(described)")
    }

    @Test func aPhotographRecordsNothing() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let picture = fixtures.path("picture.jpg")
        #expect(try TilerProcess.run(["sample", picture, "--size", "600x400", "--quiet"]).status == 0)
        #expect(try TilerProcess.run(["slice", picture, "-o", fixtures.path("o"), "--quiet"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: fixtures.path("o/picture_files/vips-properties.xml")))
        #expect(!FileManager.default.fileExists(atPath: fixtures.path("o/picture_files/associated")))
        #expect(try TilerProcess.run(["slice", picture, "-o", fixtures.path("p.szi"), "--quiet"]).status == 0)
        let entries = try ExternalTool.run("/usr/bin/unzip", ["-Z1", fixtures.path("p.szi")]).output
        #expect(!entries.contains("properties") && !entries.contains("associated"))
    }
}
