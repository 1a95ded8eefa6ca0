import Foundation
import ImageCodecs
import TestSupport
import Testing

/// Opening pyramidal TIFFs: the levels found in every layout agree with what vips and tifffile wrote, and files that
/// are not pyramids, or that Tiler cannot decode, are refused with a one-line reason.
@Suite struct TIFFPyramidTests {
    @Test(arguments: PyramidFixtures.vipsFiles.map(\.name) + PyramidFixtures.pythonFiles)
    func levelsAreWhatTheWriterWrote(name: String) throws {
        let fixtures = try PyramidFixtures.shared()
        let file = try #require(fixtures.catalog[name])
        let pyramid = try TIFFPyramid(path: fixtures.path(name))
        #expect(pyramid.levels.map(LevelShape.init) == file.levelIFDs.map(LevelShape.init))
        let layout: TIFFPyramid.Layout = name.hasSuffix(".svs") ? .aperio : name.contains("subifd") || name.contains("ome") ? .subIFDs : .pyramid
        #expect(pyramid.layout == layout)
        #expect(pyramid.bigTIFF == file.bigTIFF)
        #expect(pyramid.levels.count >= 2)
        for level in pyramid.levels {
            #expect(level.channels == 3)
            #expect(level.jpegPassThrough == (level.compression == 7))
            #expect(!level.jpegStoresRGB)
        }
    }

    @Test func vipsPyramidHasEveryHalving() throws {
        let pyramid = try TIFFPyramid(path: PyramidFixtures.shared().path("vips-jpeg.tif"))
        let shapes = pyramid.levels.map { [$0.width, $0.height, $0.tileWidth, $0.columns, $0.rows] }
        #expect(shapes == [[1000, 700, 256, 4, 3], [500, 350, 256, 2, 2], [250, 175, 256, 1, 1]])
        #expect(pyramid.iccProfile == nil)
    }

    @Test func aperioSkipsThumbnailLabelAndMacro() throws {
        let fixtures = try PyramidFixtures.shared()
        #expect(fixtures.catalog["aperio.svs"]?.ifds.count == 5)
        let pyramid = try TIFFPyramid(path: fixtures.path("aperio.svs"))
        let shapes = pyramid.levels.map { [$0.width, $0.height, $0.tileWidth, $0.tileHeight, $0.columns, $0.rows] }
        #expect(shapes == [[1000, 700, 240, 240, 5, 3], [250, 175, 240, 240, 2, 1]])
        #expect(pyramid.imageDescription?.hasPrefix("Aperio Image Library v12.0.15 \r\n1000x700 [0,0 1000x700] (240x240)") == true)
        #expect(pyramid.imageDescription?.contains("MPP = 0.4990") == true)
    }

    @Test func omeTIFFKeepsItsMetadata() throws {
        let pyramid = try TIFFPyramid(path: PyramidFixtures.shared().path("image.ome.tif"))
        #expect(pyramid.imageDescription?.contains("<OME") == true)
        #expect(pyramid.levels.map(\.compression) == [8, 8, 8])
    }

    @Test func iccProfileOfTheFullResolution() throws {
        let directory = try TemporaryDirectory()
        let icc = try [UInt8](Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/AdobeRGB1998.icc")))
        let path = directory.file("icc.tif")
        try Self.tiled("icc", compression: 8).write(to: path, pages: [Self.tiled("icc-2", compression: 8, reduced: true)], icc: icc)
        let pyramid = try TIFFPyramid(path: path)
        #expect(pyramid.iccProfile == icc)
        #expect(pyramid.levels.map(\.width) == [45, 23])
    }

    @Test func notPyramids() throws {
        let directory = try TemporaryDirectory()
        var striped = Self.tiled("striped", compression: 8)
        striped.tiled = false
        try striped.write(to: directory.file("striped.tif"), pages: [Self.tiled("small", compression: 8, reduced: true)])
        try Self.tiled("one", compression: 8).write(to: directory.file("single.tif"))
        try Self.tiled("wide", compression: 8, size: (4100, 16)).write(to: directory.file("wide.tif"))
        try Self.tiled("a", compression: 8).write(
            to: directory.file("same.tif"), pages: [Self.tiled("b", compression: 8, reduced: true, size: (45, 37))])
        try directory.write(try PNGEncoder().encode(SmoothImage.make(width: 8, height: 8)), to: "picture.tif")
        let cases = [
            ("striped.tif", "the full-resolution image is striped, not tiled"),
            ("wide.tif", "a single resolution of 4100 × 16 (no reduced-resolution levels; one level is served up to 4096 × 4096)"),
            ("same.tif", "level 1 (45 × 37) is not smaller than level 0 (45 × 37)"),
            ("picture.tif", "not a TIFF file"),
        ]
        for (name, reason) in cases {
            let error = pyramidError { _ = try TIFFPyramid(path: directory.file(name)) }
            #expect(error?.kind == .notPyramid, "\(name)")
            #expect(error?.description == directory.file(name) + ": " + reason)
        }
        // One level small enough to make every coarser level from is a pyramid of one level.
        #expect(try TIFFPyramid(path: directory.file("single.tif")).levels.map(\.width) == [45])
        let missing = pyramidError { _ = try TIFFPyramid(path: directory.file("missing.tif")) }
        #expect(missing?.kind == .unreadable)
        #expect(missing?.reason == "no such file")
    }

    @Test func unsupportedLevelsAreRefusedWithTheReason() throws {
        let directory = try TemporaryDirectory()
        var deep = Self.tiled("16", compression: 8)
        deep.bits = 16
        var deepSmall = Self.tiled("16s", compression: 8, reduced: true)
        deepSmall.bits = 16
        try deep.write(to: directory.file("16.tif"), pages: [deepSmall])
        let sixteen = pyramidError { _ = try TIFFPyramid(path: directory.file("16.tif")) }
        #expect(sixteen?.kind == .unsupported)
        #expect(sixteen?.reason == "level 0: 16-bit samples are not supported yet (8-bit levels are)")

        var bytes = TIFFBytes(try PyramidFixtures.shared().bytes("vips-jpeg.tif"))
        let compression = try #require(bytes.entry(259, in: bytes.chain[0]))
        bytes.bytes[compression.at + 8] = UInt8(33003 & 0xFF)
        bytes.bytes[compression.at + 9] = UInt8(33003 >> 8)
        let path = try directory.write(bytes.bytes, to: "jp2k.svs")
        let jpeg2000 = pyramidError { _ = try TIFFPyramid(path: path) }
        #expect(jpeg2000?.kind == .unsupported)
        #expect(jpeg2000?.reason == "level 0: compression 33003 (Aperio JPEG 2000) is not supported")
    }

    /// An 8-bit RGB fixture in 16-pixel tiles, written by libtiff: 45 × 37, or 23 × 19 when `reduced`, unless `size` says.
    static func tiled(_ name: String, compression: Int32, reduced: Bool = false, size: (Int, Int)? = nil) -> TIFFFixture {
        let (width, height) = size ?? (reduced ? (23, 19) : (45, 37))
        return TIFFFixture(
            name: name, photometric: 2, samples: 3, bits: 8, compression: compression, tiled: true, reduced: reduced, width: width, height: height)
    }
}
