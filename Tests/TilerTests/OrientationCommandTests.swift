import Foundation
import ImageCodecs
import Testing

/// `tiler slice` shows the picture as the file means it to be seen: all eight EXIF orientations, JPEG and PNG,
/// compared with the same picture stored upright.
@Suite struct OrientationCommandTests {
    /// A JPEG's 8×8 blocks of one flat colour decode within a level or two of it whichever way they were stored:
    /// the turned and the upright file are both lossy, so they are compared within this many levels.
    static let jpegTolerance = 3

    func sliceTopTile(_ input: String, fixtures: Fixtures, name: String, extra: [String] = []) throws -> PixelBuffer {
        let result = try TilerProcess.run(["slice", input, "-o", fixtures.path("out"), "--name", name, "--format", "png", "-q"] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try ImageDecoder.decode(path: fixtures.path("out/\(name)_files/7/0_0.png"))
    }

    @Test("PNG eXIf: every orientation slices pixel for pixel as the upright picture", arguments: 1...8)
    func png(orientation: Int) throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let upright = TaggedFiles.patches(width: 96, height: 64)
        let plain = try fixtures.file("upright.png", bytes: try PNGEncoder().encode(upright))
        let stored = try PNGEncoder().encode(TaggedFiles.stored(upright, orientation: orientation))
        let tagged = TaggedFiles.png(stored, inserting: [TaggedFiles.chunk("eXIf", TaggedFiles.exif(orientation: orientation))])
        let input = try fixtures.file("turned.png", bytes: tagged)
        let want = try sliceTopTile(plain, fixtures: fixtures, name: "want")
        let got = try sliceTopTile(input, fixtures: fixtures, name: "got")
        #expect(got.width == 96 && got.height == 64)
        #expect(got.bytes == want.bytes)
        let dzi = try String(contentsOfFile: fixtures.path("out/got.dzi"), encoding: .utf8)
        #expect(dzi.contains("Width=\"96\"") && dzi.contains("Height=\"64\""))
    }

    @Test("JPEG APP1 Exif: every orientation slices as the upright picture", arguments: 1...8)
    func jpeg(orientation: Int) throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let upright = TaggedFiles.patches(width: 96, height: 64)
        let encoder = try JPEGEncoder(quality: 98, subsampling: .s444)
        let plain = try fixtures.file("upright.jpg", bytes: try encoder.encode(upright))
        let stored = try encoder.encode(TaggedFiles.stored(upright, orientation: orientation))
        let tagged = TaggedFiles.jpeg(stored, app: 1, payload: Array("Exif".utf8) + [0, 0] + TaggedFiles.exif(orientation: orientation))
        let input = try fixtures.file("turned.jpg", bytes: tagged)
        let want = try sliceTopTile(plain, fixtures: fixtures, name: "want")
        let got = try sliceTopTile(input, fixtures: fixtures, name: "got")
        #expect(got.width == 96 && got.height == 64)
        let worst = zip(got.bytes, want.bytes).reduce(0) { max($0, abs(Int($1.0) - Int($1.1))) }
        #expect(worst <= Self.jpegTolerance)
        // And the untreated stored file would be far off: the comparison can fail.
        if orientation != 1 {
            let raw = try ImageDecoder.decode(path: input)
            #expect(raw.width != 96 || zip(raw.bytes, want.bytes).contains { abs(Int($0) - Int($1)) > 20 })
        }
    }

    @Test("--no-autorotate keeps the stored orientation; info reports both sizes")
    func noAutorotateAndInfo() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let stored = try PNGEncoder().encode(TaggedFiles.stored(TaggedFiles.patches(width: 96, height: 64), orientation: 6))
        let input = try fixtures.file(
            "side.png", bytes: TaggedFiles.png(stored, inserting: [TaggedFiles.chunk("eXIf", TaggedFiles.exif(orientation: 6))]))
        let kept = try TilerProcess.run(["slice", input, "-o", fixtures.path("o"), "--no-autorotate", "-q"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(try String(contentsOfFile: fixtures.path("o/side.dzi"), encoding: .utf8).contains("Width=\"64\""))
        let info = try TilerProcess.run(["info", input])
        #expect(info.stdout.contains("64 × 96 stored"), "\(info.stdout)")
        #expect(info.stdout.contains("orientation: EXIF 6 (rotate 90° clockwise); displayed 96 × 64"), "\(info.stdout)")
        let json = try TilerProcess.run(["info", input, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["width"] as? Int == 96 && object["storedWidth"] as? Int == 64 && object["orientation"] as? Int == 6)
    }
}
