import Foundation
import ImageCodecs
import TestSupport
import Testing
import TileGeometry

@testable import Slicing

/// `--container tiff` with `--format png` (Deflate tiles, Predictor 2, alpha kept) and `--format webp` (WebP tiles,
/// compression 50001): libtiff (`tiffinfo`, `tiffcp`), vips and Tiler's own reader read them back — Deflate exactly
/// the source's pixels, WebP within its loss.
@Suite struct TIFFTileCompressionTests {
    /// A smooth RGBA picture, 1000 × 700 (edge tiles on both sides), its alpha a gradient with a transparent band.
    static let rgba: TestImage = {
        let (width, height) = (1000, 700)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let at = (y * width + x) * 4
                pixels[at] = UInt8((x * 255) / width)
                pixels[at + 1] = UInt8((y * 255) / height)
                pixels[at + 2] = UInt8(((x / 20 + y / 20) % 2) * 120 + 60)
                pixels[at + 3] = (300..<340).contains(y) ? 0 : UInt8(255 - (x * 200) / width)
            }
        }
        return TestImage(width: width, height: height, channels: 4, pixels: pixels)
    }()

    static func options(_ format: TileFormat) -> SliceOptions {
        var options = format.sliceOptions()
        options.threads = 3
        options.container = .tiff
        return options
    }

    /// The source's channels `channels` (alpha last) of `image`.
    static func dropAlpha(_ image: TestImage) -> TestImage {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(image.width * image.height * 3)
        for index in stride(from: 0, to: image.pixels.count, by: 4) { pixels += image.pixels[index..<index + 3] }
        return TestImage(width: image.width, height: image.height, channels: 3, pixels: pixels)
    }

    /// `page` of the TIFF at `path` as vips reads it (through libtiff's codecs), written to PNG and decoded.
    static func vipsPage(_ path: String, page: Int, in folder: String) throws -> PixelBuffer {
        let out = folder + "/page\(page)-\(UUID().uuidString).png"
        let vips = try ExternalTool.run("/usr/bin/vips", ["copy", path + "[page=\(page)]", out])
        #expect(vips.status == 0, "\(vips.errors)")
        defer { unlink(out) }
        return try ImageDecoder.decode(path: out)
    }

    /// libtiff reads every directory (`tiffinfo -D`) and decodes every tile of every level (`tiffcp -c none`) without a
    /// complaint; returns `tiffinfo`'s output.
    static func expectLibtiffReadsEveryTile(_ path: String, in folder: String) throws -> String {
        let tiffinfo = try ExternalTool.run("/usr/bin/tiffinfo", ["-D", path])
        #expect(tiffinfo.status == 0 && tiffinfo.errors.isEmpty, "\(tiffinfo.errors)")
        let copy = try ExternalTool.run("/usr/bin/tiffcp", ["-c", "none", path, folder + "/decoded-\(UUID().uuidString).tif"])
        #expect(copy.status == 0 && copy.errors.isEmpty, "\(copy.errors)")
        return tiffinfo.output
    }

    @Test func deflateTilesHoldTheSourcesPixelsAndAlphaExactly() throws {
        let fixture = try SliceFixture()
        _ = try PyramidBuilder(options: Self.options(.png())).slice(MemoryRowSource(Self.rgba), into: fixture.directory, name: "pic")
        let path = fixture.directory + "/pic.tif"
        let info = try Self.expectLibtiffReadsEveryTile(path, in: fixture.directory)
        #expect(info.contains("Compression Scheme: AdobeDeflate") && info.contains("Predictor: horizontal differencing"), "\(info)")
        #expect(info.contains("Extra Samples: 1<unassoc-alpha>"), "\(info)")
        let full = try Self.vipsPage(path, page: 0, in: fixture.directory)
        #expect(full.width == 1000 && full.height == 700 && full.pixelFormat == .rgba)
        #expect(full.bytes == Self.rgba.pixels, "the full level is not the source, byte for byte")
        let stored = try TIFFPyramid(path: path)
        #expect(stored.levels.map { "\($0.width)x\($0.height)" } == ["1000x700", "500x350", "250x175"])
        #expect(stored.levels.allSatisfy { $0.channels == 4 && $0.compression == 8 && !$0.jpegPassThrough })
        // Tiler's reader gives the stored pixels too: a full interior tile of the finest level is the source's.
        var tile = [UInt8](repeating: 0, count: 256 * 256 * 4)
        try tile.withUnsafeMutableBytes { try stored.decodeTile(level: 0, column: 1, row: 1, into: $0) }
        for y in 0..<256 {
            let from = ((256 + y) * 1000 + 256) * 4
            #expect(Array(tile[y * 1024..<(y + 1) * 1024]) == Array(Self.rgba.pixels[from..<from + 1024]), "row \(y)")
        }
    }

    @Test func webpTilesAreReadByLibtiffAndVips() throws {
        let fixture = try SliceFixture()
        let rgb = Self.dropAlpha(Self.rgba)
        _ = try PyramidBuilder(options: Self.options(.webp(quality: 90))).slice(MemoryRowSource(rgb), into: fixture.directory, name: "w")
        _ = try PyramidBuilder(options: Self.options(.webp(quality: 90))).slice(MemoryRowSource(Self.rgba), into: fixture.directory, name: "wa")
        for (name, source) in [("w", rgb), ("wa", Self.rgba)] {
            let path = fixture.directory + "/\(name).tif"
            let info = try Self.expectLibtiffReadsEveryTile(path, in: fixture.directory)
            #expect(info.contains("Compression Scheme: WEBP"), "\(info)")
            let stored = try TIFFPyramid(path: path)
            #expect(stored.levels.count == 3 && stored.levels.allSatisfy { $0.compression == 50001 && $0.channels == source.channels })
            let full = try Self.vipsPage(path, page: 0, in: fixture.directory)
            #expect(full.width == 1000 && full.height == 700 && full.pixelFormat.channels == source.channels)
            // Fully transparent pixels are left out: lossy WebP does not keep their colour.
            var (total, counted) = (0, 0)
            let channels = source.channels
            for start in stride(from: 0, to: source.pixels.count, by: channels) where channels == 3 || source.pixels[start + 3] > 0 {
                for at in start..<start + channels { total += abs(Int(full.bytes[at]) - Int(source.pixels[at])) }
                counted += channels
            }
            #expect(Double(total) / Double(counted) < 3, "\(name): WebP at 90 strays too far from the source")
        }
    }

    @Test func greyWebPTilesAreStoredAsRGB() throws {
        let fixture = try SliceFixture()
        let grey = TestImage(width: 300, height: 300, channels: 1, pixels: (0..<90_000).map { UInt8(($0 % 300 + $0 / 300) % 256) })
        _ = try PyramidBuilder(options: Self.options(.webp())).slice(MemoryRowSource(grey), into: fixture.directory, name: "g")
        let path = fixture.directory + "/g.tif"
        _ = try Self.expectLibtiffReadsEveryTile(path, in: fixture.directory)
        let stored = try TIFFPyramid(path: path)
        #expect(stored.levels.count == 2 && stored.levels.allSatisfy { $0.channels == 3 })
    }

    @Test func alphaWithJPEGTilesIsRefusedAndLeavesNothing() throws {
        let fixture = try SliceFixture()
        try SliceSafetyTests.expectFailure(
            .invalidOptions, slicing: MemoryRowSource(Self.rgba), with: PyramidBuilder(options: Self.options(.jpeg())), in: fixture)
        var level = Self.options(.png())
        level.compressionLevel = 10
        try SliceSafetyTests.expectFailure(.invalidOptions, slicing: MemoryRowSource(Self.rgba), with: PyramidBuilder(options: level), in: fixture)
        #expect(try fixture.listing().isEmpty)
    }
}
