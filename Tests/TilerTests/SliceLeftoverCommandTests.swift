import Foundation
import Testing

/// A slice killed outright (SIGKILL) leaves its staging folder; the next slice into the same folder removes it and
/// says so, and leaves alone the staging folders of running slices and of other hosts.
@Suite struct SliceLeftoverCommandTests {
    /// Names in `folder`, hidden ones included, sorted.
    func entries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// An owner file's text naming this test process (which runs) on this host, written as `tiler` writes it but
    /// without the boot and PID namespace, which it may leave out (`-`).
    static func ownerOfThisProcess() throws -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        try #require(gethostname(&buffer, buffer.count - 1) == 0)
        let host = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let stat = try String(contentsOfFile: "/proc/self/stat", encoding: .utf8)
        let fields = stat[stat.lastIndex(of: ")")!...].split(separator: " ")
        return "pid=\(getpid()) host=\(host) start=\(fields[20]) boot=- pidns=-\n"
    }

    /// Makes a staging folder with a tile and an owner file.
    static func staging(_ path: String, owner: String) throws {
        try FileManager.default.createDirectory(atPath: path + "/x_files/0", withIntermediateDirectories: true)
        try Data("tile".utf8).write(to: URL(fileURLWithPath: path + "/x_files/0/0_0.jpg"))
        try Data(owner.utf8).write(to: URL(fileURLWithPath: path + "/.owner"))
    }

    @Test func theNextSliceRemovesWhatAKilledSliceLeft() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = fixtures.path("big.jpg")
        #expect(try TilerProcess.run(["sample", input, "--size", "6000x6000", "--quiet"]).status == 0)
        let out = fixtures.path("o")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try Self.staging(out + "/.live.tiler-aaaaaa", owner: try Self.ownerOfThisProcess())
        try Self.staging(out + "/.remote.tiler-bbbbbb", owner: "pid=1 host=another-host.example start=1 boot=- pidns=-\n")

        let process = Process()
        process.executableURL = TilerProcess.executable
        process.arguments = ["slice", input, "-o", out, "--name", "big", "--threads", "1", "--quiet"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it once it is well under way: its staging folder names its owner and holds full-size tiles.
        var leftover: String?
        let deadline = Date().addingTimeInterval(60)
        while leftover == nil, Date() < deadline, process.isRunning {
            leftover = entries(out).first { !entries("\(out)/\($0)/big_files/13").isEmpty }
            if leftover == nil { usleep(10_000) }
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
        let folder = try #require(leftover, "the slice never wrote a tile")
        #expect(folder.hasPrefix(".big.tiler-"))
        #expect(entries("\(out)/\(folder)").contains(".owner"))
        #expect(entries(out) == [folder, ".live.tiler-aaaaaa", ".remote.tiler-bbbbbb"])

        let small = try fixtures.image("small.jpg", width: 50, height: 50, format: .jpeg())
        let again = try TilerProcess.run(["slice", small, "-o", out, "--name", "big", "--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr == "tiler: removed \(folder), left by process \(process.processIdentifier) on this host, which is gone\n")
        #expect(entries(out) == [".live.tiler-aaaaaa", ".remote.tiler-bbbbbb", "big.dzi", "big_files"])

        // Nothing is left to say the next time.
        let third = try TilerProcess.run(["slice", small, "-o", out, "--name", "big", "--quiet", "--force"])
        #expect(third.status == 0 && third.stderr.isEmpty, "\(third.stderr)")
    }
}
