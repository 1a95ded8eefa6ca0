import Foundation
import TestSupport
import Testing

/// `tiler slice -o NAME.szi` and `--container szi`: one file, published whole, a killed slice's staging swept.
@Suite struct SliceContainerCommandTests {
    func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func outputNamedSZIWritesOneArchiveThatUnzipAccepts() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.jpg", width: 700, height: 300, format: .jpeg(quality: 90))
        let out = fixtures.path("out/pic.szi")
        let result = try TilerProcess.run(["slice", input, "-o", out, "--json", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(entries(fixtures.path("out")) == ["pic.szi"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["container"] as? String == "szi")
        #expect(summary["path"] as? String == out, "the file as -o names it")
        // A relative -o stays relative, as a folder pyramid's path does.
        let relative = try TilerProcess.run(
            ["slice", input, "-o", "rel/pic.szi", "--json", "--quiet"], in: URL(fileURLWithPath: fixtures.path("")))
        let named = try JSONSerialization.jsonObject(with: Data(relative.stdout.utf8)) as? [String: Any]
        #expect(relative.status == 0 && named?["path"] as? String == "rel/pic.szi", "\(relative.stdout) \(relative.stderr)")
        let bare = try TilerProcess.run(["slice", input, "-o", "bare.szi", "--json", "--quiet"], in: URL(fileURLWithPath: fixtures.path("")))
        #expect((try JSONSerialization.jsonObject(with: Data(bare.stdout.utf8)) as? [String: Any])?["path"] as? String == "./bare.szi")
        #expect(summary["tiles"] as? Int == 6 + 2 + 9)
        let listing = try ExternalTool.run("/usr/bin/unzip", ["-t", out])
        #expect(listing.status == 0 && listing.output.contains("pic/pic_files/10/2_1.jpg") && listing.output.contains("pic/pic.dzi"))
    }

    @Test func containerOptionWritesNameDotSZIInTheFolder() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.jpg", width: 100, height: 80, format: .jpeg())
        let result = try TilerProcess.run(["slice", input, "-o", fixtures.path("o"), "--name", "x", "--container", "szi"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("wrote \(fixtures.path("o"))/x.szi"), "\(result.stderr)")
        #expect(entries(fixtures.path("o")) == ["x.szi"])
    }

    @Test(arguments: [
        (["--container", "zip"], "--container"),
        (["-o", "a.szi", "--name", "b"], "--name"),
        (["-o", "a.szi", "--container", "folder"], "--container"),
        (["-o", "a.tif", "--container", "szi"], "--container"),
        (["--bigtiff"], "--bigtiff"),
    ])
    func badContainerOptionsAreRefused(extra: [String], word: String) throws {
        let result = try TilerProcess.run(["slice", "whatever.jpg"] + extra)
        #expect(result.status != 0 && !result.signalled)
        #expect(result.stderr.contains(word), "\(result.stderr)")
    }

    @Test func outputNamedTIFWritesOneBigTIFFWhenAsked() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.jpg", width: 700, height: 300, format: .jpeg(quality: 90))
        let out = fixtures.path("out/pic.tif")
        let result = try TilerProcess.run(["slice", input, "-o", out, "--bigtiff", "--json", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(entries(fixtures.path("out")) == ["pic.tif"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(summary["container"] as? String == "tiff")
        // Levels 10 (700 × 300: 3 × 2 tiles), 9 (350 × 150: 2 × 1) and 8 (175 × 75: one tile).
        #expect(summary["tiles"] as? Int == 6 + 2 + 1 && summary["levels"] as? Int == 3)
        let dump = try ExternalTool.run("/usr/bin/tiffdump", [out])
        #expect(dump.status == 0 && dump.output.contains("BigTIFF"), "\(dump.output.prefix(300))")
        let info = try TilerProcess.run(["info", out])
        #expect(info.stdout.contains("stored pyramid (pyramid layout, BigTIFF): 3 levels"), "\(info.stdout)")
    }

    /// The file written is the one `-o` names, its extension as given: `--force` replaces `a.tiff`, not beside it.
    @Test func theFileWrittenKeepsTheExtensionAsGiven() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.jpg", width: 300, height: 200, format: .jpeg())
        for name in ["a.tiff", "b.TIF", "c.SZI"] {
            #expect(try TilerProcess.run(["slice", input, "-o", fixtures.path("out/\(name)"), "--quiet"]).status == 0)
        }
        #expect(entries(fixtures.path("out")) == ["a.tiff", "b.TIF", "c.SZI"])
        let again = try TilerProcess.run(["slice", input, "-o", fixtures.path("out/a.tiff"), "--quiet"])
        #expect(again.status != 0 && again.stderr.contains("a.tiff already exists"), "\(again.stderr)")
        #expect(try TilerProcess.run(["slice", input, "-o", fixtures.path("out/a.tiff"), "--quiet", "--force"]).status == 0)
        #expect(entries(fixtures.path("out")) == ["a.tiff", "b.TIF", "c.SZI"], "replaced, not written beside")
    }

    /// A name is letters and digits of any script: `-o café.szi` is written; one `-o` names badly is refused naming `-o`.
    @Test func namesInAnyScriptAndRefusalsNameTheirSource() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.jpg", width: 100, height: 80, format: .jpeg())
        let cafe = try TilerProcess.run(["slice", input, "-o", fixtures.path("out/caf\u{E9}.szi"), "--quiet"])
        #expect(cafe.status == 0, "\(cafe.stderr)")
        #expect(entries(fixtures.path("out")) == ["caf\u{E9}.szi"])
        let spaced = try TilerProcess.run(["slice", input, "-o", fixtures.path("out/a b.szi"), "--quiet"])
        #expect(spaced.status != 0 && spaced.stderr.contains("-o ") && spaced.stderr.contains("names the pyramid 'a b'"), "\(spaced.stderr)")
    }

    /// A TIFF records sRGB's profile only when its tiles are sRGB: with `--keep-colour` the source's numbers are kept,
    /// and the file is untagged, as the folder layout's tiles are.
    @Test func keptColourLeavesTheTIFFUntagged() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("photo.jpg", width: 300, height: 200, format: .jpeg())
        #expect(try TilerProcess.run(["slice", input, "-o", fixtures.path("converted.tif"), "--quiet"]).status == 0)
        #expect(try TilerProcess.run(["slice", input, "-o", fixtures.path("kept.tif"), "--quiet", "--keep-colour"]).status == 0)
        #expect(try TilerProcess.run(["info", fixtures.path("converted.tif")]).stdout.contains("colour: ICC profile \"sRGB built-in\""))
        #expect(try TilerProcess.run(["info", fixtures.path("kept.tif")]).stdout.contains("colour: none"))
    }

    @Test func killedSliceLeavesNoArchiveAndTheNextSweepsItsStaging() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = fixtures.path("big.jpg")
        #expect(try TilerProcess.run(["sample", input, "--size", "6000x6000", "--quiet"]).status == 0)
        let out = fixtures.path("o")
        let process = Process()
        process.executableURL = TilerProcess.executable
        process.arguments = ["slice", input, "-o", out + "/big.szi", "--threads", "1", "--quiet"]
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !entries(out).contains(where: { $0.hasPrefix(".") }), Date() < deadline, process.isRunning { usleep(20_000) }
        // Let it write some tiles into its archive, then kill it outright.
        usleep(300_000)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        let left = entries(out)
        #expect(left.count == 1 && left[0].hasPrefix(".big.tiler-"), "\(left)")
        #expect(!entries(out + "/" + left[0]).filter { $0.hasSuffix(".szi") }.isEmpty, "the archive was being written in the staging folder")
        let small = try fixtures.image("small.jpg", width: 50, height: 50, format: .jpeg())
        let again = try TilerProcess.run(["slice", small, "-o", out + "/big.szi"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("removed \(left[0])"), "\(again.stderr)")
        #expect(entries(out) == ["big.szi"])
    }
}
