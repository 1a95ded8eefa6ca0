import Foundation
import ImageCodecs
import TestSupport
import Testing
import TileGeometry

@testable import Slicing

/// `--container tiff`: one tiled pyramidal TIFF that libtiff, vips, OpenSlide and Tiler's own in-place reader open,
/// laid out as COG's (IFDs first, tile data smallest level first), whose stored JPEG tiles decode to exactly the
/// pixels of the folder layout's tiles.
@Suite struct TIFFSliceTests {
    /// A smooth picture with some detail, 1000 × 700 (4 × 3 tiles at the top level, edge tiles on both sides).
    static let image: TestImage = {
        let (width, height) = (1000, 700)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 3
                pixels[at] = UInt8((x * 255) / width)
                pixels[at + 1] = UInt8((y * 255) / height)
                pixels[at + 2] = UInt8(((x / 20 + y / 20) % 2) * 120 + 60)
            }
        }
        return TestImage(width: width, height: height, channels: 3, pixels: pixels)
    }()

    /// - Parameter inPlace: Whether the finest level's spool becomes the TIFF (`FALLOC_FL_INSERT_RANGE`; on file
    ///   systems that refuse it the copy is made all the same) or every spool is copied into a new file.
    static func options(_ container: PyramidContainer, bigTIFF: Bool = false, inPlace: Bool = false) -> SliceOptions {
        var options = TileFormat.jpeg(quality: 85).sliceOptions()
        options.threads = 3
        options.container = container
        options.bigTIFF = bigTIFF
        options.tiffInPlaceMinimumBytes = inPlace ? 0 : .max
        return options
    }

    /// The pixels of a JPEG file's bytes.
    static func decode(_ bytes: [UInt8], in folder: String) throws -> PixelBuffer {
        let path = folder + "/decode-\(UUID().uuidString).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        return try ImageDecoder.decode(path: path)
    }

    @Test(arguments: [(false, false), (true, false), (false, true), (true, true)])
    func storedTilesDecodeToTheFolderTilesPixels(bigTIFF: Bool, inPlace: Bool) throws {
        let fixture = try SliceFixture()
        _ = try PyramidBuilder(options: Self.options(.folder)).slice(MemoryRowSource(Self.image), into: fixture.directory, name: "pic")
        let summary = try PyramidBuilder(options: Self.options(.tiff, bigTIFF: bigTIFF, inPlace: inPlace)).slice(
            MemoryRowSource(Self.image), into: fixture.directory, name: "pic")
        let path = fixture.directory + "/pic.tif"
        #expect(summary.path == path && summary.container == "tiff")
        #expect(try fixture.listing() == ["pic.dzi", "pic.tif", "pic_files"], "no staging or spool is left")
        let pyramid = Pyramid(width: 1000, height: 700, tileSize: 256, overlap: 0)
        let stored = try TIFFPyramid(path: path)
        #expect(stored.bigTIFF == bigTIFF && stored.layout == .pyramid)
        #expect(stored.iccProfile == SRGBProfile.bytes)
        // Levels 10 (1000 × 700) down to 8 (250 × 175), the first that fits in one tile.
        #expect(stored.levels.map { "\($0.width)x\($0.height)" } == ["1000x700", "500x350", "250x175"])
        #expect(stored.levels.allSatisfy { $0.jpegPassThrough && $0.tileWidth == 256 && $0.channels == 3 })
        for index in stored.levels.indices {
            let dz = pyramid.maxLevel - index
            let grid = pyramid.grid(dz)
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let rect = pyramid.tileRect(level: dz, column: column, row: row)
                    guard rect.width == 256 && rect.height == 256 else { continue }
                    let passed = try stored.jpegTile(level: index, column: column, row: row)
                    let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(fixture.directory)/pic_files/\(dz)/\(column)_\(row).jpg")))
                    #expect(
                        try Self.decode(passed, in: fixture.directory) == (try Self.decode(file, in: fixture.directory)),
                        "tile \(dz)/\(column)_\(row)")
                }
            }
        }
        // An edge tile is stored at the full size, its pixels those of the folder's (within JPEG's loss at the padding).
        var padded = [UInt8](repeating: 0, count: 256 * 256 * 3)
        try padded.withUnsafeMutableBytes { try stored.decodeTile(level: 0, column: 3, row: 2, into: $0) }
        let edge = try Self.decode(
            [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(fixture.directory)/pic_files/10/3_2.jpg"))), in: fixture.directory)
        #expect(edge.width == 1000 - 768 && edge.height == 700 - 512)
        var difference = 0
        for y in 0..<edge.height {
            for x in 0..<edge.width * 3 { difference += abs(Int(padded[y * 256 * 3 + x]) - Int(edge.bytes[y * edge.width * 3 + x])) }
        }
        #expect(Double(difference) / Double(edge.width * edge.height * 3) < 2)
    }

    /// In place, the finest level's data starts at a multiple of the file system's block size, after fewer zeros than
    /// one block; copied, right after the next level's.
    @Test(arguments: [false, true]) func libtiffVipsAndOpenSlideOpenItAndItIsLaidOutAsCOG(inPlace: Bool) throws {
        let fixture = try SliceFixture()
        _ = try PyramidBuilder(options: Self.options(.tiff, inPlace: inPlace)).slice(
            MemoryRowSource(Self.image), into: fixture.directory, name: "pic")
        let path = fixture.directory + "/pic.tif"
        let tiffinfo = try ExternalTool.run("/usr/bin/tiffinfo", [path])
        #expect(tiffinfo.status == 0 && tiffinfo.errors.isEmpty, "\(tiffinfo.errors)")
        #expect(tiffinfo.output.components(separatedBy: "reduced-resolution image").count == 3)
        // libtiff decodes every tile of every level (tiffcp to an uncompressed copy) without a complaint.
        let decoded = try ExternalTool.run("/usr/bin/tiffcp", ["-c", "none", path, fixture.directory + "/decoded.tif"])
        #expect(decoded.status == 0 && decoded.errors.isEmpty, "\(decoded.errors)")
        let vips = try ExternalTool.run("/usr/bin/vips", ["copy", path + "[page=1]", fixture.directory + "/page1.v"])
        #expect(vips.status == 0, "\(vips.errors)")
        let header = try ExternalTool.run("/usr/bin/vipsheader", [fixture.directory + "/page1.v"])
        #expect(header.output.contains("500x350"), "\(header.output)")
        let openslide = try ExternalTool.run("/usr/bin/openslide-show-properties", [path])
        #expect(openslide.status == 0 && openslide.output.contains("openslide.level-count: '3'"), "\(openslide.output) \(openslide.errors)")
        let script = """
            import ctypes, os, sys, tempfile, tifffile
            with tifffile.TiffFile(sys.argv[1]) as tif:
                ifds = max(p.offset for p in tif.pages)
                firsts = [min(p.dataoffsets) for p in tif.pages]
                lasts = [max(o + n for o, n in zip(p.dataoffsets, p.databytecounts)) for p in tif.pages]
                assert ifds < min(firsts), "an IFD after tile data"
                assert all(lasts[i + 1] <= firsts[i] for i in range(len(firsts) - 1)), "a larger level's tiles before a smaller one's"
                assert lasts[0] == tif.filehandle.size, "bytes after the last tile"
                gap, block = firsts[0] - lasts[1], os.stat(sys.argv[1]).st_blksize
                # Where the file system refuses FALLOC_FL_INSERT_RANGE (0x20), the slice copies instead.
                with tempfile.TemporaryFile(dir=os.path.dirname(sys.argv[1])) as probe:
                    probe.write(bytes(2 * block))
                    probe.flush()
                    libc = ctypes.CDLL(None, use_errno=True)
                    inserts = libc.fallocate(probe.fileno(), 0x20, ctypes.c_long(0), ctypes.c_long(block)) == 0
                if sys.argv[2] == "1" and inserts:
                    assert firsts[0] % block == 0 and gap < block, f"in place: finest at {firsts[0]}, {gap} zeros"
                else:
                    assert gap == 0, f"copied: {gap} bytes between the levels"
                print(len(tif.pages), tif.pages[0].compression, tif.pages[0].photometric)
            """
        let layout = try ExternalTool.run("/usr/bin/python3", ["-c", script, path, inPlace ? "1" : "0"])
        #expect(layout.status == 0, "\(layout.errors)")
        #expect(layout.output.trimmingCharacters(in: .whitespacesAndNewlines) == "3 7 6", "pages, compression JPEG, YCbCr: \(layout.output)")
    }

    /// Progress counts the tiles the TIFF stores (down to the first level of one tile), as the summary does, and ends
    /// complete.
    @Test func progressCountsTheStoredTiles() throws {
        let fixture = try SliceFixture()
        var options = Self.options(.tiff)
        options.progressInterval = 0
        var reports: [SliceProgress] = []
        let summary = try PyramidBuilder(options: options).slice(MemoryRowSource(Self.image), into: fixture.directory, name: "pic") {
            reports.append($0)
        }
        let last = try #require(reports.last)
        // Levels 10 (4 × 3 tiles), 9 (2 × 2) and 8 (1): 17, not the 17 + 8 of the smaller levels a folder has.
        #expect(summary.tiles == 17)
        #expect(last.totalTiles == 17 && last.tilesWritten == 17 && last.fractionCompleted == 1)
        #expect(reports.allSatisfy { $0.tilesWritten <= $0.totalTiles })
    }

    @Test func greyImagesAreStoredGrey() throws {
        let fixture = try SliceFixture()
        let grey = TestImage(width: 300, height: 300, channels: 1, pixels: (0..<90_000).map { UInt8(($0 % 300 + $0 / 300) % 256) })
        _ = try PyramidBuilder(options: Self.options(.tiff)).slice(MemoryRowSource(grey), into: fixture.directory, name: "g")
        let stored = try TIFFPyramid(path: fixture.directory + "/g.tif")
        #expect(stored.levels.count == 2 && stored.levels.allSatisfy { $0.channels == 1 && $0.jpegPassThrough })
        let decoded = try ExternalTool.run("/usr/bin/tiffcp", ["-c", "none", fixture.directory + "/g.tif", fixture.directory + "/decoded.tif"])
        #expect(decoded.status == 0 && decoded.errors.isEmpty, "\(decoded.errors)")
    }

    @Test func whatATIFFCannotHoldIsRefusedAndLeavesNothing() throws {
        let fixture = try SliceFixture()
        let alpha = TestImage.random(width: 300, height: 200, channels: 4, seed: 2)
        try SliceSafetyTests.expectFailure(
            .invalidOptions, slicing: MemoryRowSource(alpha), with: PyramidBuilder(options: Self.options(.tiff)), in: fixture)
        var pam = SliceFixture.options()
        pam.container = .tiff
        try SliceSafetyTests.expectFailure(.invalidOptions, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: pam), in: fixture)
        var oddTiles = Self.options(.tiff)
        oddTiles.tileSize = 100
        try SliceSafetyTests.expectFailure(
            .invalidOptions, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: oddTiles), in: fixture)
        var overlap = Self.options(.tiff)
        overlap.overlap = 1
        try SliceSafetyTests.expectFailure(.invalidOptions, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: overlap), in: fixture)
        #expect(try fixture.listing().isEmpty)
    }

    @Test func cancelledSliceLeavesNoTIFF() throws {
        let fixture = try SliceFixture()
        let builder = PyramidBuilder(options: Self.options(.tiff))
        let source = MemoryRowSource(Self.image)
        source.rowsPerRead = 10
        source.beforeRead = { row in if row >= 400 { builder.cancel() } }
        try SliceSafetyTests.expectFailure(.cancelled, slicing: source, with: builder, in: fixture)
        #expect(try fixture.listing().isEmpty)
    }
}
