import Foundation
import ImageCodecs
import Testing

/// The command line behaves as users of such tools expect: --version, -q, defaults shown once, a mistyped
/// subcommand named, flags named as typed, one row number, a busy port in one line, no trace after a failure, and
/// colour handling reported.
@Suite struct ConventionsCommandTests {
    @Test func versionAndQuiet() throws {
        let version = try TilerProcess.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ".").count == 3, "\(version.stdout)")
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("p.jpg", width: 300, height: 200, format: .jpeg())
        let quiet = try TilerProcess.run(["slice", input, "-o", fixtures.path("o"), "-q"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty && quiet.stdout.isEmpty, "\(quiet.stderr)")
    }

    @Test func everyDefaultIsShownOnce() throws {
        for command in ["slice", "info"] {
            let help = try TilerProcess.run([command, "--help"])
            // Help wraps lines; join each option's text and count "default" per option.
            let options = help.stdout.components(separatedBy: "\n  -").dropFirst()
            for option in options {
                let count = option.components(separatedBy: "default").count - 1
                #expect(count <= 1, "\(command): \(option)")
            }
        }
    }

    @Test func aMistypedSubcommandIsNamed() throws {
        let result = try TilerProcess.run(["slise", "x.jpg"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("unknown subcommand 'slise'; did you mean 'slice'?"), "\(result.stderr)")
    }

    @Test func flagsAreNamedAsTyped() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("p.jpg", width: 100, height: 100, format: .jpeg())
        _ = try TilerProcess.run(["slice", input, "-o", fixtures.path("o"), "-q"])
        let again = try TilerProcess.run(["slice", input, "-o", fixtures.path("o"), "-q"])
        #expect(again.stderr.contains("use --force to replace it"), "\(again.stderr)")
    }

    @Test func aSourceBrokenMidImageNamesOneRow() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        try fixtures.image("whole.png", width: 400, height: 300, format: .png())
        let bytes = try fixtures.bytes("whole.png")
        let cut = try fixtures.file("cut.png", bytes: Array(bytes.prefix(bytes.count / 2)))
        let result = try TilerProcess.run(["slice", cut, "-o", fixtures.path("o"), "-q"])
        #expect(result.status != 0)
        #expect(result.stderr.components(separatedBy: "row").count - 1 == 1, "\(result.stderr)")
    }

    @Test func aFailedSliceRemovesTheOutputFolderItCreated() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        try fixtures.image("whole.jpg", width: 400, height: 300, format: .jpeg())
        let bytes = try fixtures.bytes("whole.jpg")
        let cut = try fixtures.file("cut.jpg", bytes: Array(bytes.prefix(bytes.count / 2)))
        let result = try TilerProcess.run(["slice", cut, "-o", fixtures.path("new/deeper"), "-q"])
        #expect(result.status != 0)
        #expect(!FileManager.default.fileExists(atPath: fixtures.path("new")))
        // A folder that existed before stays.
        try FileManager.default.createDirectory(atPath: fixtures.path("kept"), withIntermediateDirectories: true)
        _ = try TilerProcess.run(["slice", cut, "-o", fixtures.path("kept"), "-q"])
        #expect(FileManager.default.fileExists(atPath: fixtures.path("kept")))
    }

    @Test func jsonHasNoEscapedSlashes() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("p.jpg", width: 100, height: 80, format: .jpeg())
        let slice = try TilerProcess.run(["slice", input, "-o", fixtures.path("o/p"), "--json", "-q"])
        #expect(slice.status == 0)
        #expect(!slice.stdout.contains("\\/"), "\(slice.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(slice.stdout.utf8)) as? [String: Any])
        #expect(object["dzi"] as? String == fixtures.path("o/p") + "/p.dzi")
        let info = try TilerProcess.run(["info", input, "--json"])
        #expect(!info.stdout.contains("\\/"))
        #expect(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) is [String: Any])
    }

    @Test func aBusyPortIsOneLineBeforeAnyServingLine() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let first = Process()
        first.executableURL = TilerProcess.executable
        first.arguments = ["serve", fixtures.folder.path, "--port", "0"]
        let out = Pipe()
        first.standardOutput = out
        first.standardError = FileHandle.nullDevice
        try first.run()
        defer {
            first.terminate()
            first.waitUntilExit()
        }
        let line = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        let port = try #require(line.split(separator: ":").last.map { String($0.prefix { $0.isNumber }) })
        let second = try TilerProcess.run(["serve", fixtures.folder.path, "--port", port])
        #expect(second.status != 0)
        #expect(second.stdout.isEmpty, "\(second.stdout)")
        #expect(second.stderr.contains("cannot listen on 127.0.0.1:\(port): the address is already in use"), "\(second.stderr)")
        #expect(second.stderr.split(separator: "\n").filter { $0.hasPrefix("Error") }.count == 1)
    }

    @Test func colourIsConvertedKeptOrRefusedAsAsked() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let profile = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "/usr/share/color/icc/colord/SwappedRedAndGreen.icc")))
        let picture = TaggedFiles.patches(width: 64, height: 48)
        let input = try fixtures.file(
            "swap.png", bytes: TaggedFiles.png(try PNGEncoder().encode(picture), inserting: [TaggedFiles.iccp(profile)]))
        let converted = try TilerProcess.run(["slice", input, "-o", fixtures.path("c"), "--format", "png"])
        #expect(converted.status == 0)
        #expect(converted.stderr.contains("colour: ICC profile"), "\(converted.stderr)")
        let tile = try ImageDecoder.decode(path: fixtures.path("c/swap_files/6/0_0.png"))
        #expect(abs(Int(tile.bytes[0]) - Int(picture.bytes[1])) <= 2 && abs(Int(tile.bytes[1]) - Int(picture.bytes[0])) <= 2)
        let kept = try TilerProcess.run(["slice", input, "-o", fixtures.path("k"), "--keep-colour", "--format", "png"])
        #expect(kept.status == 0)
        #expect(kept.stderr.contains("kept as stored (--keep-colour)"), "\(kept.stderr)")
        #expect(try ImageDecoder.decode(path: fixtures.path("k/swap_files/6/0_0.png")).bytes == picture.bytes)
        let info = try TilerProcess.run(["info", input])
        #expect(info.stdout.contains("colour: ICC profile \""), "\(info.stdout)")
        let broken = try fixtures.file(
            "broken.png", bytes: TaggedFiles.png(try PNGEncoder().encode(picture), inserting: [TaggedFiles.iccp(Array(profile.prefix(100)))]))
        let warned = try TilerProcess.run(["slice", broken, "-o", fixtures.path("w"), "-q"])
        #expect(warned.status == 0)
        #expect(warned.stderr.split(separator: "\n").count == 1 && warned.stderr.contains("taken as sRGB"), "\(warned.stderr)")
        let strict = try TilerProcess.run(["slice", broken, "-o", fixtures.path("s"), "-q", "--strict-colour"])
        #expect(strict.status != 0)
        #expect(strict.stderr.contains("colour profile cannot be used"), "\(strict.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fixtures.path("s")))
        let both = try TilerProcess.run(["slice", broken, "--keep-colour", "--strict-colour"])
        #expect(both.status == 64 && both.stderr.contains("--keep-colour and --strict-colour"))
    }
}
