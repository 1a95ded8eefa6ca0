import Foundation
import ImageCodecs
import Testing

@Suite struct SliceCommandTests {
    /// Names in `folder`, hidden ones included, sorted.
    func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func writesAPyramidAndASummary() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.jpg", width: 700, height: 300, format: .jpeg(quality: 90))
        let out = fixtures.path("out/nested")
        let result = try TilerProcess.run(["slice", input, "-o", out, "--json", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(entries(out) == ["photo.dzi", "photo_files"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["width"] as? Int == 700)
        #expect(summary["levels"] as? Int == 11)
        // Level 10: 3 × 2 tiles; level 9: 2 × 1; levels 0–8: 1 each.
        #expect(summary["tiles"] as? Int == 6 + 2 + 9)
        #expect((summary["bytesWritten"] as? Int ?? 0) > 0)
        let tile = try ImageDecoder.decode(path: out + "/photo_files/10/2_1.jpg")
        #expect(tile.width == 700 - 512 && tile.height == 300 - 256)
        let dzi = try String(contentsOfFile: out + "/photo.dzi", encoding: .utf8)
        #expect(dzi.contains("Format=\"jpg\"") && dzi.contains("Width=\"700\"") && dzi.contains("Height=\"300\""))
    }

    @Test func alphaSourcesGetPNGTilesAndNamesAreHonoured() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("a.png", width: 300, height: 10, pixelFormat: .rgba, format: .png())
        let result = try TilerProcess.run(["slice", input, "-o", fixtures.path("o"), "--name", "layer", "--overlap", "1", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let tile = try ImageDecoder.decode(path: fixtures.path("o/layer_files/9/0_0.png"))
        #expect(tile.pixelFormat == .rgba)
        #expect(tile.width == 257)  // 256 + 1 px of overlap on the side with a neighbour
    }

    @Test func existingPyramidIsRefusedWithoutForceAndReplacedWithIt() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let small = try fixtures.image("img.jpg", width: 100, height: 100, format: .jpeg())
        let out = fixtures.path("o")
        #expect(try TilerProcess.run(["slice", small, "-o", out, "--quiet"]).status == 0)
        let again = try TilerProcess.run(["slice", small, "-o", out, "--quiet"])
        #expect(again.status != 0)
        #expect(again.stderr.contains("exists"), "\(again.stderr)")
        try fixtures.image("img.jpg", width: 600, height: 100, format: .jpeg())
        let forced = try TilerProcess.run(["slice", small, "-o", out, "--quiet", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: out + "/img.dzi", encoding: .utf8).contains("Width=\"600\""))
        #expect(entries(out) == ["img.dzi", "img_files"])
    }

    /// The 4096² 4:4:4 JPEG is decoded on two threads (`DecodeOptions.pipelinedJPEG`), the 800×600 one on one.
    @Test(arguments: [(800, 600, ChromaSubsampling.s420), (4096, 4096, .s444)])
    func aSourceThatBreaksMidImageLeavesNothingBehind(width: Int, height: Int, subsampling: ChromaSubsampling) throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        try fixtures.image("whole.jpg", width: width, height: height, format: .jpeg(subsampling: subsampling))
        let bytes = try fixtures.bytes("whole.jpg")
        let cut = try fixtures.file("cut.jpg", bytes: Array(bytes.prefix(bytes.count * 2 / 3)))
        let out = fixtures.path("o")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let result = try TilerProcess.run(["slice", cut, "-o", out, "--quiet"])
        #expect(result.status != 0 && !result.signalled)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("cut.jpg") && result.stderr.contains("row"), "\(result.stderr)")
        #expect(entries(out).isEmpty)
    }

    @Test func interruptionLeavesNothingBehindAndKeepsTheOldPyramid() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = fixtures.path("big.jpg")
        #expect(try TilerProcess.run(["sample", input, "--size", "6000x6000", "--quiet"]).status == 0)
        let small = try fixtures.image("small.jpg", width: 50, height: 50, format: .jpeg())
        let out = fixtures.path("o")
        #expect(try TilerProcess.run(["slice", small, "-o", out, "--name", "big", "--quiet"]).status == 0)
        let before = try String(contentsOfFile: out + "/big.dzi", encoding: .utf8)

        let process = Process()
        process.executableURL = TilerProcess.executable
        process.arguments = ["slice", input, "-o", out, "--force", "--threads", "1"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Wait until the slice is under way (its hidden temporary folder exists), then interrupt it.
        let deadline = Date().addingTimeInterval(20)
        while !entries(out).contains(where: { $0.hasPrefix(".") }), Date() < deadline, process.isRunning { usleep(20_000) }
        process.interrupt()
        process.waitUntilExit()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 130, "\(stderr)")
        #expect(stderr.contains("interrupted"))
        #expect(entries(out) == ["big.dzi", "big_files"])
        #expect(try String(contentsOfFile: out + "/big.dzi", encoding: .utf8) == before)
    }

    @Test func anInterruptedSampleLeavesNoFile() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let process = Process()
        process.executableURL = TilerProcess.executable
        process.arguments = ["sample", fixtures.path("big.jpg"), "--size", "8000x8000"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Interrupt once rendering is under way (its first progress line is out).
        let first = errors.fileHandleForReading.availableData
        #expect(!first.isEmpty)
        process.interrupt()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 130)
        #expect(entries(fixtures.folder.path).isEmpty)
    }

    @Test(arguments: [
        (["--tile-size", "0"], "tile-size"),
        (["--overlap", "256"], "overlap"),
        (["--format", "gif"], "format"),
        (["--quality", "101"], "quality"),
        (["--name", "../x"], "name"),
        (["--threads", "0"], "threads"),
    ])
    func badOptionsNameTheOption(extra: [String], word: String) throws {
        let result = try TilerProcess.run(["slice", "whatever.jpg"] + extra)
        #expect(result.status != 0 && !result.signalled)
        #expect(result.stderr.contains(word), "\(result.stderr)")
    }
}
