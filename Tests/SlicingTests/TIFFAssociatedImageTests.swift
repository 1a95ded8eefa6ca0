import Foundation
import ImageCodecs
import TestSupport
import Testing

@testable import Slicing

/// A slide's associated images in `--container tiff`: a striped JPEG directory each after the levels (NewSubfileType
/// 1, the kind as ImageDescription), their bytes between the IFDs and the tile data, read back by Tiler's reader as
/// the very JPEG files kept — while libtiff decodes every directory cleanly and vips and OpenSlide see the levels as
/// before.
@Suite struct TIFFAssociatedImageTests {
    /// A picture with detail, `width` × `height`, of `channels` channels.
    static func picture(width: Int, height: Int, channels: Int, seed: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * channels)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: (index / channels % width) * 3 + (index / (width * channels)) * seed) }
        return PixelBuffer(width: width, height: height, pixelFormat: channels == 1 ? .gray : .rgb, bytes: bytes)
    }

    /// A label at 4:4:4, a macro image at 4:2:0 of odd sides, a grey thumbnail; and a progressive JPEG (marked so),
    /// which a TIFF strip does not hold as it is.
    static func images() throws -> [AssociatedImage] {
        let label = try JPEGEncoder(quality: 90, subsampling: .s444).encode(picture(width: 240, height: 120, channels: 3, seed: 5))
        let macro = try JPEGEncoder(quality: 90).encode(picture(width: 401, height: 151, channels: 3, seed: 7))
        let thumbnail = try JPEGEncoder(quality: 90).encode(picture(width: 87, height: 62, channels: 1, seed: 3))
        var progressive = label
        let frame = try #require((2..<progressive.count - 1).first { progressive[$0] == 0xFF && progressive[$0 + 1] == 0xC0 })
        progressive[frame + 1] = 0xC2
        return [
            AssociatedImage(kind: "label", jpeg: label), AssociatedImage(kind: "macro", jpeg: macro),
            AssociatedImage(kind: "thumbnail", jpeg: thumbnail), AssociatedImage(kind: "progressive", jpeg: progressive),
        ]
    }

    @Test(arguments: [(false, false), (true, true)])
    func associatedImagesAreReadBackAsKept(bigTIFF: Bool, inPlace: Bool) throws {
        let fixture = try SliceFixture()
        let images = try Self.images()
        var options = TIFFSliceTests.options(.tiff, bigTIFF: bigTIFF, inPlace: inPlace)
        options.associatedImages = images
        _ = try PyramidBuilder(options: options).slice(MemoryRowSource(TIFFSliceTests.image), into: fixture.directory, name: "pic")
        let stored = try TIFFPyramid(path: fixture.directory + "/pic.tif")
        #expect(stored.levels.map { "\($0.width)x\($0.height)" } == ["1000x700", "500x350", "250x175"], "the levels as before")
        let sizes = stored.associatedImages.mapValues { "\($0.width)x\($0.height)" }
        #expect(sizes == ["label": "240x120", "macro": "401x151", "thumbnail": "87x62"], "the progressive JPEG is left out")
        for image in images.prefix(3) {
            #expect(try stored.associatedJPEG(image.kind) == image.jpeg, "\(image.kind)")
        }
        #expect(throws: TIFFPyramidError.self) { try stored.associatedJPEG("progressive") }
        // A TIFF without them has none.
        let bare = PyramidBuilder(options: TIFFSliceTests.options(.tiff))
        _ = try bare.slice(MemoryRowSource(TIFFSliceTests.image), into: fixture.directory, name: "bare")
        #expect(try TIFFPyramid(path: fixture.directory + "/bare.tif").associatedImages.isEmpty)
    }

    @Test func libtiffDecodesThemAndVipsAndOpenSlideSeeTheLevelsAsBefore() throws {
        let fixture = try SliceFixture()
        var options = TIFFSliceTests.options(.tiff, inPlace: true)
        options.associatedImages = try Self.images()
        _ = try PyramidBuilder(options: options).slice(MemoryRowSource(TIFFSliceTests.image), into: fixture.directory, name: "pic")
        let path = fixture.directory + "/pic.tif"
        let tiffinfo = try ExternalTool.run("/usr/bin/tiffinfo", [path])
        #expect(tiffinfo.status == 0 && tiffinfo.errors.isEmpty, "\(tiffinfo.errors)")
        let directories = tiffinfo.output.components(separatedBy: "=== TIFF directory ").dropFirst()
        #expect(directories.count == 6)
        for (directory, kind) in zip(directories.suffix(3), ["label", "macro", "thumbnail"]) {
            #expect(directory.contains("Subfile Type: reduced-resolution image (1 = 0x1)"), "\(directory)")
            #expect(directory.contains("ImageDescription: \(kind)\n") && directory.contains("Compression Scheme: JPEG"), "\(directory)")
            #expect(!directory.contains("Tile Width"), "striped: \(directory)")
        }
        // libtiff decodes every strip and tile (tiffcp to an uncompressed copy) without a complaint.
        let decoded = try ExternalTool.run("/usr/bin/tiffcp", ["-c", "none", path, fixture.directory + "/decoded.tif"])
        #expect(decoded.status == 0 && decoded.errors.isEmpty, "\(decoded.errors)")
        for (page, size) in [(3, "240x120"), (4, "401x151"), (5, "87x62")] {
            let copied = fixture.directory + "/page\(page).v"
            #expect(try ExternalTool.run("/usr/bin/vips", ["copy", path + "[page=\(page)]", copied]).status == 0)
            #expect(try ExternalTool.run("/usr/bin/vipsheader", [copied]).output.contains(size), "page \(page)")
        }
        let openslide = try ExternalTool.run("/usr/bin/openslide-show-properties", [path])
        #expect(openslide.status == 0 && openslide.output.contains("openslide.level-count: '3'"), "\(openslide.output) \(openslide.errors)")
        // The JPEG files lie after every IFD and before every tile, the finest level's tiles still last.
        let script = """
            import sys, tifffile
            with tifffile.TiffFile(sys.argv[1]) as tif:
                levels, kept = tif.pages[:3], tif.pages[3:]
                tiles = min(min(p.dataoffsets) for p in levels)
                assert max(p.offset for p in tif.pages) < min(p.dataoffsets[0] for p in kept), "a JPEG before an IFD"
                assert max(p.dataoffsets[0] + p.databytecounts[0] for p in kept) <= tiles, "a JPEG after a tile"
                assert max(o + n for o, n in zip(levels[0].dataoffsets, levels[0].databytecounts)) == tif.filehandle.size
                print(len(tif.pages), [p.description for p in kept])
            """
        let layout = try ExternalTool.run("/usr/bin/python3", ["-c", script, path])
        #expect(layout.status == 0, "\(layout.errors)")
        #expect(layout.output.trimmingCharacters(in: .whitespacesAndNewlines) == "6 ['label', 'macro', 'thumbnail']", "\(layout.output)")
    }
}
