import Foundation
import ImageCodecs
import Testing

/// `tiler slice` and `tiler info` on TIFF input, and WebP tiles, through the built binary.
@Suite struct SliceTIFFCommandTests {
    func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// The full-resolution level of a sliced pyramid, reassembled from its WebP tiles.
    func reassemble(_ folder: String, level: Int, width: Int, height: Int, tileSize: Int) throws -> [UInt8] {
        var image = [UInt8](repeating: 0, count: width * height * 3)
        for row in 0..<(height + tileSize - 1) / tileSize {
            for column in 0..<(width + tileSize - 1) / tileSize {
                let tile = try WebPDecoder.decode(try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(level)/\(column)_\(row).webp"))))
                #expect(tile.pixelFormat == .rgb)
                for y in 0..<tile.height {
                    let start = ((row * tileSize + y) * width + column * tileSize) * 3
                    image.replaceSubrange(start..<start + tile.width * 3, with: tile.bytes[y * tile.width * 3..<(y + 1) * tile.width * 3])
                }
            }
        }
        return image
    }

    @Test func aTiledTIFFSlicesToWebPTilesThatDecodeBackToTheSource() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = fixtures.path("scan.tif")
        try TIFFFile.write([TIFFFile.Page(width: 300, height: 200, tiled: true, compression: 8)], to: input)
        let out = fixtures.path("o")
        let lossy = try TilerProcess.run(["slice", input, "-o", out, "--format", "webp", "--quality", "90", "--quiet"])
        #expect(lossy.status == 0, "\(lossy.stderr)")
        let dzi = try String(contentsOfFile: out + "/scan.dzi", encoding: .utf8)
        #expect(dzi.contains("Format=\"webp\"") && dzi.contains("Width=\"300\""))
        let source = TIFFFile.pixels(width: 300, height: 200)
        let decoded = try reassemble(out + "/scan_files", level: 9, width: 300, height: 200, tileSize: 256)
        // Quality 90 on smooth ramps: PSNR above 38 dB (the tolerance of lossy WebP at that quality).
        #expect(psnr(decoded, source) > 38, "PSNR \(psnr(decoded, source))")

        let lossless = try TilerProcess.run(["slice", input, "-o", out, "--name", "exact", "--format", "webp", "--lossless", "--quiet"])
        #expect(lossless.status == 0, "\(lossless.stderr)")
        #expect(try reassemble(out + "/exact_files", level: 9, width: 300, height: 200, tileSize: 256) == source)
    }

    @Test func pageChoosesAPageOfAMultiPageBigTIFF() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = fixtures.path("pages.tif")
        try TIFFFile.write([TIFFFile.Page(width: 120, height: 80), TIFFFile.Page(width: 70, height: 33, tiled: true)], to: input, big: true)
        let out = fixtures.path("o")
        let result = try TilerProcess.run(["slice", input, "-o", out, "--page", "1", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: out + "/pages.dzi", encoding: .utf8).contains("Width=\"70\" Height=\"33\""))
        let missing = try TilerProcess.run(["slice", input, "-o", out, "--name", "p5", "--page", "5", "--quiet"])
        #expect(missing.status != 0 && !missing.signalled)
        #expect(missing.stderr == "Error: \(input): there is no page 5: the file has 2 pages (0–1)\n", "\(missing.stderr)")
        let info = try TilerProcess.run(["info", input])
        #expect(info.stdout.contains("BigTIFF, 120 × 80"), "\(info.stdout)")
        #expect(info.stdout.contains("strips of 16 rows, LZW compression (5)"), "\(info.stdout)")
        #expect(info.stdout.contains("page 0 of 2"), "\(info.stdout)")
        let json = try TilerProcess.run(["info", input, "--page", "1", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let tiff = try #require(object["tiff"] as? [String: Any])
        #expect(object["format"] as? String == "tiff" && object["width"] as? Int == 70)
        #expect(tiff["layout"] as? String == "tiles" && tiff["tileWidth"] as? Int == 64 && tiff["compressionName"] as? String == "LZW")
        #expect(tiff["page"] as? Int == 1 && tiff["pages"] as? Int == 2 && tiff["bigTIFF"] as? Bool == true)
    }

    @Test func aBrokenTIFFFailsInOneLineAndLeavesNothing() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let whole = fixtures.path("whole.tif")
        try TIFFFile.write([TIFFFile.Page(width: 400, height: 300, compression: 1)], to: whole)
        var bytes = try fixtures.bytes("whole.tif")
        // libtiff writes the directory after the strips: zero a third of the strips' bytes and drop a run of them.
        bytes.removeSubrange(1000..<60000)
        let broken = try fixtures.file("broken.tif", bytes: bytes)
        let out = fixtures.path("o")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let result = try TilerProcess.run(["slice", broken, "-o", out, "--quiet"])
        #expect(result.status != 0 && !result.signalled)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("broken.tif"), "\(result.stderr)")
        #expect(entries(out).isEmpty)
    }

    @Test func theOrientationTagIsAppliedLikeEXIF() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = fixtures.path("sideways.tif")
        try TIFFFile.write([TIFFFile.Page(width: 120, height: 80, tiled: true, orientation: 6)], to: input)
        let out = fixtures.path("o")
        #expect(try TilerProcess.run(["slice", input, "-o", out, "--quiet"]).status == 0)
        #expect(try String(contentsOfFile: out + "/sideways.dzi", encoding: .utf8).contains("Width=\"80\" Height=\"120\""))
        let stored = try TilerProcess.run(["slice", input, "-o", out, "--name", "stored", "--no-autorotate", "--quiet"])
        #expect(stored.status == 0, "\(stored.stderr)")
        #expect(try String(contentsOfFile: out + "/stored.dzi", encoding: .utf8).contains("Width=\"120\" Height=\"80\""))
        let info = try TilerProcess.run(["info", input])
        #expect(info.stdout.contains("orientation: TIFF tag"), "\(info.stdout)")
    }

    @Test func losslessNeedsWebP() throws {
        let result = try TilerProcess.run(["slice", "x.tif", "--lossless"])
        #expect(result.status != 0 && result.stderr.contains("--lossless needs --format webp"), "\(result.stderr)")
    }

    func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        let squared = zip(a, b).reduce(0.0) { $0 + pow(Double(Int($1.0) - Int($1.1)), 2) }
        return squared == 0 ? .infinity : 10 * log10(255 * 255 / (squared / Double(a.count)))
    }
}
