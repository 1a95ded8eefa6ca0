import Foundation
import ImageCodecs
import TestSupport
import Testing
import TileGeometry

@testable import TileServer
@testable import TileSources

/// Whole-slide images served in place through OpenSlide, in-process: openslide-python's own test slides and slides the
/// tests write in documented vendor formats (Hamamatsu VMS, a generic TIFF with separate colour planes), found beside
/// the TIFF source's files, each Deep Zoom tile compared with what OpenSlide itself (python3-openslide's
/// DeepZoomGenerator over `read_region`) makes; and bad slides — unreadable, unopenable, a companion file missing or
/// removed or replaced while served, a slide replaced while served — an error for that image alone.
@Suite(.serialized) struct SlideTests {
    static func withServer(_ body: (EmbeddedConnection, PyramidFixture) async throws -> Void) async throws {
        let fixture = try await blocking { () throws -> PyramidFixture in
            let fixture = try PyramidFixture()
            try SlideFixture.addSlides(to: fixture)
            return fixture
        }
        try await EmbeddedConnection.with(testConfiguration(root: fixture.root)) { try await body($0, fixture) }
    }

    static func get(_ connection: EmbeddedConnection, _ target: String) async throws -> (status: Int, bytes: [UInt8]) {
        try await StoredPyramidTests.get(connection, target)
    }

    static func slide(_ connection: EmbeddedConnection, _ name: String) -> SlidePyramid? {
        guard let image = connection.runtime.context.catalog.images.first(where: { $0.name == name }), let stored = image.source as? StoredTiles
        else { return nil }
        return stored.pyramid as? SlidePyramid
    }

    @Test func slidesAreFoundBesideTIFFsAndBadOnesLeftOut() async throws {
        try await Self.withServer { connection, _ in
            let images = connection.runtime.context.catalog.images
            #expect(
                images.map(\.name).sorted() == [
                    "alpha", "boxes", "icc", "labelled", "mirax/slide", "planes", "pyramid", "small", "unreadable", "vms/slide",
                ])
            #expect(Self.slide(connection, "pyramid") == nil, "the TIFF source serves a multi-level Aperio SVS")
            #expect(Self.slide(connection, "boxes") == nil, "the TIFF source serves the generic TIFF it reads")
            #expect(Self.slide(connection, "small")?.vendor == "aperio", "a single-resolution Aperio slide goes to OpenSlide")
            #expect(Self.slide(connection, "planes")?.vendor == "generic-tiff", "separate planes: the TIFF source refuses, OpenSlide reads")
            #expect(Self.slide(connection, "vms/slide")?.vendor == "hamamatsu")
            #expect(Self.slide(connection, "mirax/slide")?.vendor == "mirax")
            let descriptor = try await Self.get(connection, "/images/vms/slide.dzi")
            let xml = String(decoding: descriptor.bytes, as: UTF8.self)
            #expect(descriptor.status == 200 && xml.contains("Width=\"1024\" Height=\"768\"") && xml.contains("Format=\"jpg\""))
        }
    }

    // alpha.tiff: OpenSlide's premultiplied pixels over the white background, against openslide-python's unpremultiply
    // and PIL's composite.
    @Test(arguments: [
        ("small.svs", "small"), ("planes.tiff", "planes"), ("vms/slide.vms", "vms/slide"), ("labelled.svs", "labelled"), ("alpha.tiff", "alpha"),
        ("mirax/slide.mrxs", "mirax/slide"),
    ])
    func everyTileIsOpenSlidesPixels(file: String, name: String) async throws {
        try await Self.withServer { connection, fixture in
            let reference = try await blocking { try SlideFixture.reference(fixture.root + "/" + file, in: fixture) }
            let slide = try #require(Self.slide(connection, name))
            let geometry = try #require(connection.runtime.context.catalog.images.first { $0.name == name }).pyramid
            var exact = 0
            var resampled = 0
            for level in 0...geometry.maxLevel {
                let size = geometry.levelSize(level)
                // A Deep Zoom level that is a stored level is read_region's pixels as they are; the others DeepZoomGenerator
                // shrinks with a Lanczos filter (PIL's thumbnail), Tiler with box means, as `tiler slice` does.
                let stored = slide.levels.contains { $0.width == size.width && $0.height == size.height }
                let grid = geometry.grid(level)
                for column in 0..<grid.columns {
                    for row in 0..<grid.rows {
                        let served = try await Self.get(connection, "/\(connection.images(name))_files/\(level)/\(column)_\(row).jpg")
                        #expect(served.status == 200, "\(name) \(level)/\(column)_\(row)")
                        let decoded = try decodeImage(served.bytes)
                        let expected = try ImageDecoder.decode(path: "\(reference)/\(level)/\(column)_\(row).png")
                        // DeepZoomGenerator's thumbnail keeps the aspect ratio, so a tiny level can be a pixel narrower.
                        guard decoded.width == expected.width && decoded.height == expected.height else {
                            #expect(!stored && abs(decoded.width - expected.width) <= 1 && abs(decoded.height - expected.height) <= 1)
                            continue
                        }
                        // Both through the same JPEG encoding, so what is compared is the pixels before it.
                        let encoded = try decodeImage(try JPEGEncoder(quality: 85).encode(expected))
                        let difference = try #require(meanDifference(decoded, encoded))
                        if stored {
                            // Over a background, Tiler composites premultiplied samples in one rounding, openslide-python
                            // unpremultiplies and PIL composites: at most 1 level apart per sample before encoding.
                            let bound = name == "alpha" ? 1.0 : 0.5
                            #expect(difference < bound, "\(name) \(level)/\(column)_\(row) differs from read_region's by \(difference)")
                            exact += 1
                        } else {
                            // Two filters (box means, Lanczos) on a picture of sharp-edged colours: a sanity bound, not
                            // an equality; they differ most where a level is a few pixels.
                            let bound = min(size.width, size.height) >= 8 ? 10.0 : 16.0
                            #expect(difference < bound, "\(name) \(level)/\(column)_\(row) differs from DeepZoomGenerator's by \(difference)")
                            resampled += 1
                        }
                    }
                }
            }
            #expect(exact >= 1 && exact + resampled >= geometry.maxLevel, "\(exact) tiles compared exactly, \(resampled) resampled")
        }
    }

    // The VMS levels read without OpenSlide (RestartJPEGGrid): regions at odd offsets, across restart intervals and
    // JPEG boundaries and past the edge, byte for byte what OpenSlide's read_region gives.
    @Test func aVMSsJPEGLevelsAreReadExactlyAsOpenSlideReadsThem() async throws {
        try await Self.withServer { connection, fixture in
            let pyramid = try #require(Self.slide(connection, "vms/slide"))
            let grid = try #require(pyramid.jpegGrid, "the generated VMS's JPEGs are read directly")
            let slide = try Slide(path: fixture.root + "/vms/slide.vms")
            let read = (0..<slide.levels.count).filter { grid.reads(level: $0) }
            #expect(read == [0, 1], "1/1 and 1/2 of the JPEGs; OpenSlide's smaller levels come from the map")
            var random = SplitMix64(seed: 32)
            let blocks = SlideBlockCache(budget: 64 << 20)
            let cached = try SlidePyramid(path: fixture.root + "/vms/slide.vms", handles: SlideHandles(capacity: 1), blocks: blocks)
            for level in read {
                let size = slide.levels[level]
                var regions = [(0, 0, size.width, size.height), (size.width - 100, size.height - 50, 256, 256)]
                for _ in 0..<12 {
                    let width = Int(random.next() % 300) + 1
                    let height = Int(random.next() % 300) + 1
                    regions.append((Int(random.next() % UInt64(size.width)), Int(random.next() % UInt64(size.height)), width, height))
                }
                for (x, y, width, height) in regions {
                    let direct = try #require(try grid.rgb(level: level, x: x, y: y, width: width, height: height, background: slide.background))
                    let downsample = slide.levels[level].downsample
                    let expected = try slide.rgb(
                        level: level, x: Int(Double(x) * downsample), y: Int(Double(y) * downsample), width: width, height: height)
                    #expect(direct.bytes == expected.bytes, "level \(level) \(x),\(y) \(width)×\(height)")
                    // Through the slide's decoded-block cache (regions within the level), twice: decoded, then cached.
                    let x1 = min(size.width, x + width)
                    let y1 = min(size.height, y + height)
                    for _ in 0..<2 {
                        let assembled = try cached.region(level: level, x0: x, y0: y, x1: x1, y1: y1)
                        let within = try slide.rgb(
                            level: level, x: Int(Double(x) * downsample), y: Int(Double(y) * downsample), width: x1 - x, height: y1 - y)
                        #expect(assembled.bytes == within.bytes, "cached: level \(level) \(x),\(y) \(width)×\(height)")
                    }
                    // Past the level's edge: the background there, as the direct read gives.
                    let whole = try cached.region(level: level, x0: x, y0: y, x1: x + width, y1: y + height)
                    #expect(whole.bytes == direct.bytes, "cached, unclipped: level \(level) \(x),\(y) \(width)×\(height)")
                }
            }
            #expect(blocks.blocks.count > 0 && blocks.blocks.count <= 4 * 3 + 2 * 2, "the blocks of levels 0 and 1, each kept once")
        }
    }

    @Test func theListSaysWhatSlidesAreAndTheirExtrasAreServed() async throws {
        try await Self.withServer { connection, fixture in
            let list = try await Self.get(connection, "/api/images")
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.bytes)) as? [[String: Any]])
            let byName = Dictionary(uniqueKeysWithValues: entries.map { ($0["name"] as? String ?? "", $0) })
            let small = try #require(byName["small"])
            #expect(small["vendor"] as? String == "aperio" && small["objectivePower"] as? Double == 20)
            #expect((small["micronsPerPixel"] as? [String: Double]) == ["x": 0.499, "y": 0.499])
            #expect((small["associated"] as? [String: String]) == ["thumbnail": "/api/images/small/associated/thumbnail"])
            #expect(small["properties"] as? String == "/api/images/small/properties")
            let vms = try #require(byName["vms/slide"])
            #expect(vms["vendor"] as? String == "hamamatsu" && (vms["micronsPerPixel"] as? [String: Double])?["x"] == 0.45)
            #expect((vms["associated"] as? [String: String])?["macro"] == "/api/images/vms/slide/associated/macro")
            #expect(byName["boxes"]?["vendor"] as? String == "tiff" && byName["boxes"]?["associated"] == nil)
            // planes.tiff (OpenSlide's generic-tiff, no openslide.mpp-x): from its resolution tags, 40,000 a centimetre.
            #expect((byName["planes"]?["micronsPerPixel"] as? [String: Double]) == ["x": 0.25, "y": 0.25])
            // boxes.tiff's XResolution is 4294967295/151551421 pixels per centimetre.
            let boxes = try #require(byName["boxes"]?["micronsPerPixel"] as? [String: Double])
            #expect(abs((boxes["x"] ?? 0) - 10_000 / (4_294_967_295.0 / 151_551_421.0)) < 1e-3, "from the TIFF resolution tags")

            let properties = try await Self.get(connection, "/api/images/small/properties")
            let values = try #require(try JSONSerialization.jsonObject(with: Data(properties.bytes)) as? [String: String])
            #expect(properties.status == 200 && values["openslide.mpp-x"] == "0.499" && values["aperio.AppMag"] == "20")

            let slide = try Slide(path: fixture.root + "/vms/slide.vms")
            let macro = try await Self.get(connection, "/api/images/vms/slide/associated/macro")
            #expect(macro.status == 200)
            let decoded = try decodeImage(macro.bytes)
            let expected = try decodeImage(try JPEGEncoder(quality: 90).encode(try slide.associatedRGB("macro")))
            #expect((meanDifference(decoded, expected) ?? 99) < 0.5, "the macro image OpenSlide reads, as JPEG")
            #expect(try await Self.get(connection, "/api/images/vms/slide/associated/macro").bytes == macro.bytes, "kept once made")

            let labelled = try #require(byName["labelled"]?["associated"] as? [String: String])
            #expect(labelled.keys.sorted() == ["label", "macro", "thumbnail"])
            let label = try await Self.get(connection, try #require(labelled["label"]))
            #expect(label.status == 200)
            #expect(try decodeImage(label.bytes).width == 240, "the label as OpenSlide reads it")
            #expect(try await Self.get(connection, "/api/images/small/associated/label").status == 404)
            #expect(try await Self.get(connection, "/api/images/boxes/properties").status == 404, "not a slide")

            // A multi-level Aperio SVS, as scanners write them: its tiles are the TIFF source's, its label, macro and
            // properties OpenSlide's.
            let pyramid = try #require(byName["pyramid"])
            #expect(pyramid["vendor"] as? String == "aperio" && pyramid["objectivePower"] as? Double == 40)
            #expect((pyramid["micronsPerPixel"] as? [String: Double]) == ["x": 0.25, "y": 0.25])
            let extras = try #require(pyramid["associated"] as? [String: String])
            #expect(extras.keys.sorted() == ["label", "macro", "thumbnail"])
            let pyramidLabel = try await Self.get(connection, try #require(extras["label"]))
            #expect(pyramidLabel.status == 200)
            #expect(try decodeImage(pyramidLabel.bytes).width == 240)
            let pyramidProperties = try await Self.get(connection, try #require(pyramid["properties"] as? String))
            let pyramidValues = try #require(try JSONSerialization.jsonObject(with: Data(pyramidProperties.bytes)) as? [String: String])
            #expect(pyramidValues["openslide.vendor"] == "aperio" && pyramidValues["aperio.AppMag"] == "40")
            #expect(try await Self.get(connection, "/images/pyramid_files/11/0_0.jpg").status == 200)
            #expect(try await Self.get(connection, "/api/images/nothing/associated/label").status == 404)

            // For IIIF viewers' rulers: the physical dimensions service of the same figure, in millimetres a pixel.
            for (name, scale) in [("pyramid", 0.00025), ("vms%2Fslide", 0.00045), ("small", 0.000499)] {
                let info = try await Self.get(connection, "/iiif/3/\(name)/info.json")
                let document = try #require(try JSONSerialization.jsonObject(with: Data(info.bytes)) as? [String: Any])
                let services = try #require(document["service"] as? [[String: Any]], "\(name)")
                let physical = try #require(services.first { $0["profile"] as? String == IIIFInfo.physicalDimensionsProfile })
                #expect(physical["@context"] as? String == "http://iiif.io/api/annex/services/physdim/1/context.json")
                #expect(abs((physical["physicalScale"] as? Double ?? 0) - scale) < 1e-12 && physical["physicalUnits"] as? String == "mm", "\(name)")
            }
        }
    }

    // make_slides.py's MIRAX: 4 × 4 camera images of 256 pixels, six scanned (columns 1–3 of rows 1–2), fill colour 306090.
    @Test func aSparseMIRAXSlideIsServedInPlaceWithItsBoundsOverItsBackground() async throws {
        try await Self.withServer { connection, _ in
            let list = try await Self.get(connection, "/api/images")
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(list.bytes)) as? [[String: Any]])
            let mirax = try #require(entries.first { $0["name"] as? String == "mirax/slide" })
            #expect(mirax["vendor"] as? String == "mirax" && mirax["objectivePower"] as? Double == 20)
            #expect((mirax["micronsPerPixel"] as? [String: Double]) == ["x": 0.25, "y": 0.25])
            #expect((mirax["bounds"] as? [String: Int]) == ["x": 256, "y": 256, "width": 768, "height": 512], "the scanned images' extent")
            let properties = try await Self.get(connection, "/api/images/mirax/slide/properties")
            let values = try #require(try JSONSerialization.jsonObject(with: Data(properties.bytes)) as? [String: String])
            #expect(values["openslide.background-color"] == "306090")
            let slide = try #require(Self.slide(connection, "mirax/slide"))
            #expect(slide.companions.files.map { $0.path.split(separator: "/").last ?? "" } == ["Data0000.dat", "Index.dat", "Slidedat.ini"])
            // Level 10 is the full resolution: tile 0_0 was never scanned, 1_1 was; level 8 (256 pixels) holds both.
            let empty = try decodeImage(try await Self.get(connection, "/images/mirax/slide_files/10/0_0.jpg").bytes)
            let mean = Self.meanColour(empty)
            #expect(abs(mean.0 - 0x30) < 3 && abs(mean.1 - 0x60) < 3 && abs(mean.2 - 0x90) < 3, "the background colour, not white: \(mean)")
            let scanned = Self.meanColour(try decodeImage(try await Self.get(connection, "/images/mirax/slide_files/10/1_1.jpg").bytes))
            #expect(abs(scanned.0 - 0x30) + abs(scanned.1 - 0x60) + abs(scanned.2 - 0x90) > 30, "scanned pixels: \(scanned)")
            let whole = try decodeImage(try await Self.get(connection, "/images/mirax/slide_files/8/0_0.jpg").bytes)
            let corner = whole.bytes[((10 * whole.width) + 10) * 3..<((10 * whole.width) + 10) * 3 + 3].map { Int($0) }
            #expect(abs(corner[0] - 0x30) < 6 && abs(corner[1] - 0x60) < 6 && abs(corner[2] - 0x90) < 6, "\(corner)")
        }
    }

    /// The mean of each channel of RGB `pixels`.
    static func meanColour(_ pixels: PixelBuffer) -> (Double, Double, Double) {
        var sums = [0.0, 0.0, 0.0]
        for (index, value) in pixels.bytes.enumerated() { sums[index % 3] += Double(value) }
        let count = Double(pixels.width * pixels.height)
        return (sums[0] / count, sums[1] / count, sums[2] / count)
    }

    @Test func anUnreadableSlideIsAnErrorForItAlone() async throws {
        try await Self.withServer { connection, _ in
            for _ in 0..<2 {
                let bad = try await Self.get(connection, "/images/unreadable_files/4/0_0.jpg")
                #expect(bad.status == 500, "OpenSlide's error state: a clean 500, and the next read tries again")
            }
            let good = try await Self.get(connection, "/images/small_files/4/0_0.jpg")
            #expect(good.status == 200)
            #expect(connection.runtime.context.catalog.images.count == 10)
        }
    }

    @Test func aCompanionFileRemovedWhileServedIsAnErrorUntilItIsBack() async throws {
        try await Self.withServer { connection, fixture in
            let jpeg = fixture.root + "/vms/slide(1,1).jpg"
            let kept = fixture.base + "/kept.jpg"
            try FileManager.default.moveItem(atPath: jpeg, toPath: kept)
            // Level 10 is the full resolution: tile 3_2 lies in JPEG (1,1), 0_0 in JPEG (0,0).
            let missing = try await Self.get(connection, "/images/vms/slide_files/10/3_2.jpg")
            #expect(missing.status == 500)
            let other = try await Self.get(connection, "/images/vms/slide_files/10/0_0.jpg")
            #expect(other.status == 500, "the slide cannot be opened again without its JPEG")
            #expect(try await Self.get(connection, "/images/small_files/4/0_0.jpg").status == 200)
            try FileManager.default.moveItem(atPath: kept, toPath: jpeg)
            #expect(try await Self.get(connection, "/images/vms/slide_files/10/3_2.jpg").status == 200, "opened again once it is back")
        }
    }

    /// A TIFF-based slide's ICC profile (which OpenSlide 3.4 ignores) converts its tiles to sRGB, as `tiler slice`
    /// converts the same file: icc.svs is (220, 40, 40) under a profile that swaps red and green.
    @Test func aSlidesICCProfileIsHonouredAsSlicingHonoursIt() async throws {
        try await Self.withServer { connection, fixture in
            #expect(Self.slide(connection, "icc") != nil, "a single-resolution Aperio slide: OpenSlide's")
            let served = try await Self.get(connection, "/images/icc_files/9/0_0.jpg")
            #expect(served.status == 200)
            let pixels = try decodeImage(served.bytes)
            let sliced = try ImageDecoder.decode(path: fixture.root + "/icc.svs")
            let expected = Array(sliced.bytes[0..<3])
            #expect(expected[1] > 200 && expected[0] < 60, "the profile swaps red and green: \(expected)")
            let centre = ((pixels.height / 2) * pixels.width + pixels.width / 2) * 3
            let got = Array(pixels.bytes[centre..<centre + 3])
            #expect(zip(got, expected).allSatisfy { abs(Int($0) - Int($1)) <= 3 }, "served \(got), sliced \(expected)")
        }
    }

    /// A slide the scan refused for a missing companion comes back once it is restored: the refusal holds only while the
    /// files beside the key file are unchanged.
    @Test func aSlideRefusedForAMissingCompanionComesBackWhenItIsRestored() async throws {
        try await Self.withServer { connection, fixture in
            let catalog = connection.runtime.context.catalog
            let jpeg = fixture.root + "/vms/slide(1,1).jpg"
            let kept = fixture.base + "/kept.jpg"
            try FileManager.default.moveItem(atPath: jpeg, toPath: kept)
            catalog.rescan()
            #expect(!catalog.images.contains { $0.name == "vms/slide" }, "refused while its JPEG is missing")
            catalog.rescan()
            #expect(!catalog.images.contains { $0.name == "vms/slide" }, "and still, the folder unchanged")
            try FileManager.default.moveItem(atPath: kept, toPath: jpeg)
            catalog.rescan()
            #expect(catalog.images.contains { $0.name == "vms/slide" }, "served again once the JPEG is back")
            #expect(try await Self.get(connection, "/images/vms/slide_files/10/3_2.jpg").status == 200)
        }
    }

    /// OpenSlide opens the files a key file names wherever they lead: a VMS naming `../` paths, or whose JPEGs are
    /// symlinks out of ROOT, is not served (nothing outside ROOT is ever read for a client).
    @Test func aSlideWhoseFilesLeadOutsideRootIsNotServed() async throws {
        try await Self.withServer { connection, fixture in
            let catalog = connection.runtime.context.catalog
            let key = try String(contentsOfFile: fixture.root + "/vms/slide.vms", encoding: .utf8)
            // A key file naming its JPEGs by a path that climbs out of its folder (here to another slide's).
            try fixture.write(key.replacingOccurrences(of: "=slide", with: "=../vms/slide"), to: "root/climbing/slide.vms")
            // JPEGs beside the key file that are symlinks to files outside ROOT.
            try FileManager.default.createDirectory(atPath: fixture.base + "/outside", withIntermediateDirectories: true)
            try fixture.write(key, to: "root/linked/slide.vms")
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/vms").filter { $0.hasSuffix(".jpg") }
            for name in names {
                try FileManager.default.copyItem(atPath: fixture.root + "/vms/" + name, toPath: fixture.base + "/outside/" + name)
                try fixture.symlink("root/linked/" + name, to: fixture.base + "/outside/" + name)
            }
            catalog.rescan()
            let served = catalog.images.map(\.name)
            #expect(served.contains("vms/slide"))
            #expect(!served.contains("climbing/slide") && !served.contains("linked/slide"), "\(served)")
            #expect(try await Self.get(connection, "/images/climbing/slide_files/10/0_0.jpg").status == 404)
            #expect(try await Self.get(connection, "/images/linked/slide_files/10/0_0.jpg").status == 404)
        }
    }

    /// A file a slide is read from that is not a regular file (a FIFO, which would hold OpenSlide's open(2) and the scan
    /// for ever) keeps the slide from being opened; the scan goes on and the rest is served.
    @Test func aSlideWithAFIFOAmongItsFilesIsRefusedWithoutHanging() async throws {
        try await Self.withServer { connection, fixture in
            let catalog = connection.runtime.context.catalog
            try FileManager.default.createDirectory(atPath: fixture.root + "/fifo", withIntermediateDirectories: true)
            for name in try FileManager.default.contentsOfDirectory(atPath: fixture.root + "/vms") where name != "slide(1,1).jpg" {
                try FileManager.default.copyItem(atPath: fixture.root + "/vms/" + name, toPath: fixture.root + "/fifo/" + name)
            }
            #expect(mkfifo(fixture.root + "/fifo/slide(1,1).jpg", 0o644) == 0)
            catalog.rescan()
            let served = catalog.images.map(\.name)
            #expect(!served.contains("fifo/slide") && served.contains("vms/slide"), "\(served)")
        }
    }

    // OpenSlide opens a VMS's JPEGs by name on every read: a JPEG replaced under an open handle would be read as part of
    // the slide first opened, its pixels served under the old version.
    @Test func aCompanionFileReplacedWhileServedIsNoticed() async throws {
        try await Self.withServer { connection, fixture in
            let before = try #require(connection.runtime.context.catalog.images.first { $0.name == "vms/slide" })
            let first = try await Self.get(connection, "/images/vms/slide_files/10/3_2.jpg")
            #expect(first.status == 200)
            #expect(Self.slide(connection, "vms/slide")?.isCurrent == true)
            // JPEG (0,0) has the size and restart layout of (1,1): OpenSlide would read it without complaint.
            let replacement = fixture.base + "/replacement.jpg"
            try FileManager.default.copyItem(atPath: fixture.root + "/vms/slide(0,0).jpg", toPath: replacement)
            #expect(rename(replacement, fixture.root + "/vms/slide(1,1).jpg") == 0)
            #expect(Self.slide(connection, "vms/slide")?.isCurrent == false)
            for tile in ["10/2_2", "10/0_0", "9/1_1"] {
                let stale = try await Self.get(connection, "/images/vms/slide_files/\(tile).jpg")
                #expect(stale.status == 500, "\(tile): the handle reads a replaced JPEG, so no tile is made from it")
            }
            connection.runtime.context.catalog.rescan()
            let after = try #require(connection.runtime.context.catalog.images.first { $0.name == "vms/slide" })
            #expect(after.id != before.id && after.version != before.version, "a new version, so cached URLs of the old one are not reused")
            let fresh = try await Self.get(connection, "/images/vms/slide_files/10/3_2.jpg")
            #expect(fresh.status == 200 && fresh.bytes != first.bytes, "made from the new JPEG")
        }
    }

    @Test func aSlideReplacedWhileServedIsNeverServedAsTheOldOne() async throws {
        try await Self.withServer { connection, fixture in
            let before = try #require(connection.runtime.context.catalog.images.first { $0.name == "small" })
            let slide = try #require(Self.slide(connection, "small"))
            let replacement = fixture.base + "/replacement.svs"
            try FileManager.default.copyItem(atPath: fixture.root + "/planes.tiff", toPath: replacement)
            _ = rename(replacement, fixture.root + "/small.svs")
            slide.closeHandle()
            let stale = try await Self.get(connection, "/images/small_files/4/0_0.jpg")
            #expect(stale.status == 500, "the file changed: not read as the slide first opened")
            connection.runtime.context.catalog.rescan()
            let after = try #require(connection.runtime.context.catalog.images.first { $0.name == "small" })
            #expect(after.version != before.version && after.descriptor.width == 1024)
            #expect(try await Self.get(connection, "/images/small_files/10/0_0.jpg").status == 200)
        }
    }
}

extension EmbeddedConnection {
    /// `images/{name}`: the unversioned path prefix of image `name`'s tiles.
    fileprivate func images(_ name: String) -> String { "images/" + name }
}
