import Foundation
import TestSupport
import Testing

@testable import tiler

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `tiler serve`'s logging and environment, as an operator meets them: the access log on stdout, the log's level
/// and format on stderr, and `TILER_*` variables for every option (the command line winning).
@Suite struct ServeLoggingTests {
    /// A running `tiler serve` whose stdout and stderr are collected as they come.
    final class Running: @unchecked Sendable {
        let process = Process()
        private let out = Locked(Data())
        private let err = Locked(Data())
        private(set) var base = ""

        /// Starts `tiler` with `arguments`; with `descriptorLimit`, under that limit on open files (soft and hard, set by
        /// util-linux's `prlimit`).
        init(_ arguments: [String], environment: [String: String] = [:], descriptorLimit: Int? = nil) throws {
            if let descriptorLimit {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
                process.arguments = ["--nofile=\(descriptorLimit):\(descriptorLimit)", "--", TilerProcess.executable.path] + arguments
            } else {
                process.executableURL = TilerProcess.executable
                process.arguments = arguments
            }
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILER_") }.merging(environment) { _, new in new }
            let outPipe = Pipe()
            let errPipe = Pipe()
            process.standardOutput = outPipe
            process.standardError = errPipe
            outPipe.fileHandleForReading.readabilityHandler = { [out] handle in out.value.append(handle.availableData) }
            errPipe.fileHandleForReading.readabilityHandler = { [err] handle in err.value.append(handle.availableData) }
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, process.isRunning {
                // The URL in the startup line, plain (`… at http://…/`) or JSON (`… at http://…/","metadata"…`), https
                // with TLS.
                if let start = stdout.range(of: "https://") ?? stdout.range(of: "http://") {
                    let url = stdout[start.lowerBound...].prefix { !$0.isWhitespace && $0 != "\"" }
                    base = String(url.dropLast())  // without the trailing slash
                    break
                }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }

        var stdout: String { String(decoding: out.value, as: UTF8.self) }
        var stderr: String { String(decoding: err.value, as: UTF8.self) }

        /// Stops the server (SIGTERM) and waits for it.
        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            Thread.sleep(forTimeInterval: 0.1)  // the last pipe reads
        }
    }

    static func pyramid(_ fixtures: Fixtures) throws -> String {
        let input = fixtures.path("pic.jpg")
        #expect(try TilerProcess.run(["sample", input, "--size", "600x400", "--quiet"]).status == 0)
        let root = fixtures.path("root")
        #expect(try TilerProcess.run(["slice", input, "-o", root, "--quiet"]).status == 0)
        return root
    }

    @Test func theAccessLogWritesOneJSONLinePerRequest() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let server = try Running(["serve", try Self.pyramid(fixtures), "--port", "0", "--access-log", "--log-format", "json"])
        defer { server.stop() }
        #expect(!server.base.isEmpty, "no URL announced: \(server.stderr)")
        let targets = ["/images/pic_files/9/0_0.jpg", "/images/pic_files/9/0_0.jpg", "/images/nope.dzi", "/api/images?x=%22quoted%22"]
        for target in targets {
            _ = try ServeReSliceTests.get(server.base + target)
        }
        server.stop()
        // Every line on stdout is JSON in this mode, the startup line included (JSON-lines ingestion reads them all).
        let all = server.stdout.split(separator: "\n")
        #expect(all.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) is [String: Any] }, "\(server.stdout)")
        let banner = try #require(try JSONSerialization.jsonObject(with: Data((all.first ?? "").utf8)) as? [String: Any])
        #expect((banner["message"] as? String)?.hasPrefix("Tiler is serving ") == true)
        #expect(((banner["metadata"] as? [String: String])?["url"]).map { $0 == server.base + "/" } == true, "\(banner)")
        let lines = all.filter { $0.hasPrefix("{\"time\"") && $0.contains("\"client\":") }
        #expect(lines.count == targets.count, "\(server.stdout)")
        // Each event loop buffers its own lines, so lines from different connections may come out of order.
        let records = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        for record in records {
            #expect(record["method"] as? String == "GET")
            #expect(record["client"] as? String == "127.0.0.1")
            #expect((record["duration_us"] as? Int).map { $0 >= 0 && $0 < 10_000_000 } == true)
            let time = try #require(record["time"] as? String)
            #expect(time.count == 24 && time.hasSuffix("Z") && time.contains("T"), "\(time)")
        }
        func answers(_ target: String) -> [String] {
            records.filter { $0["target"] as? String == target }.map { "\($0["status"] as? Int ?? 0) \($0["cache"] as? String ?? "")" }.sorted()
        }
        #expect(answers(targets[0]) == ["200 hit", "200 miss"])
        #expect(answers(targets[2]) == ["404 -"])
        #expect(answers(targets[3]) == ["200 -"], "the target as sent, quotes escaped")
        let tile = try #require(records.first { $0["target"] as? String == targets[0] })
        #expect((tile["bytes"] as? Int ?? 0) > 100)
        // The server's own log went to stderr, as JSON too.
        let logLines = server.stderr.split(separator: "\n")
        #expect(!logLines.isEmpty)
        for line in logLines {
            let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(record?["level"] != nil && record?["message"] != nil, "\(line)")
        }
    }

    @Test func withoutAccessLogNothingIsWrittenPerRequestAndTheLevelFilters() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let root = try Self.pyramid(fixtures)
        let quiet = try Running(["serve", root, "--port", "0", "--log-level", "warning"])
        _ = try ServeReSliceTests.get(quiet.base + "/api/images")
        quiet.stop()
        #expect(quiet.stdout.split(separator: "\n").count == 1, "only the startup line: \(quiet.stdout)")
        #expect(quiet.stderr.isEmpty, "info lines are below warning: \(quiet.stderr)")
        let text = try Running(["serve", root, "--port", "0", "--access-log"])
        _ = try ServeReSliceTests.get(text.base + "/images/pic.dzi")
        text.stop()
        #expect(text.stdout.contains("127.0.0.1 [") && text.stdout.contains("\"GET /images/pic.dzi HTTP/1.1\" 200 "), "\(text.stdout)")
        #expect(text.stderr.contains(" info tiler.server: Serving 1 image"), "\(text.stderr)")
        let bad = try TilerProcess.run(["serve", root, "--log-level", "loud"])
        #expect(bad.status != 0 && bad.stderr.contains("--log-level must be one of trace, debug, info"))
    }

    @Test func everyOptionIsReadableFromTheEnvironmentAndTheFlagWins() throws {
        // Each of serve's options has its variable: compared with the command's own description of its options.
        let help = try TilerProcess.run(["serve", "--experimental-dump-help"])
        let command = try #require((try JSONSerialization.jsonObject(with: Data(help.stdout.utf8)) as? [String: Any])?["command"] as? [String: Any])
        let arguments = try #require(command["arguments"] as? [[String: Any]])
        var declared: Set<String> = []
        for argument in arguments {
            let names = (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            if argument["kind"] as? String == "positional" {
                declared.insert(argument["valueName"] as? String ?? "")
            } else if let long = names.first(where: { $0.count > 1 }), !["help", "version"].contains(long) {
                declared.insert(long)
            }
        }
        let environment = Set(Serve.environmentOptions.map(\.name))
        #expect(declared == environment, "options without a TILER_ variable: \(declared.subtracting(environment))")

        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let root = try Self.pyramid(fixtures)
        // ROOT, the access log and the CORS origins from the environment; the port from the flag, not TILER_PORT=1.
        let server = try Running(
            ["serve", "--port", "0"],
            environment: [
                "TILER_ROOT": root, "TILER_PORT": "1", "TILER_ACCESS_LOG": "1", "TILER_CORS_ORIGIN": "https://a.example, https://b.example",
            ])
        defer { server.stop() }
        #expect(server.base.hasPrefix("http://127.0.0.1:") && !server.base.hasSuffix(":1"), "\(server.base) \(server.stderr)")
        let request = URLRequest(url: try #require(URL(string: server.base + "/images/pic.dzi")))
        var withOrigin = request
        withOrigin.setValue("https://b.example", forHTTPHeaderField: "Origin")
        let answer = try Self.headers(withOrigin)
        #expect(answer["access-control-allow-origin"] == "https://b.example")
        server.stop()
        #expect(server.stdout.contains("\"GET /images/pic.dzi HTTP/1.1\" 200 "), "\(server.stdout)")
    }

    @Test func invalidVariablesAreErrorsThatNameThem() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let cases: [([String: String], String)] = [
            (["TILER_TRUST_PROXY": "maybe"], "TILER_TRUST_PROXY=\"maybe\" is not on or off"),
            (["TILER_ACCESS_LOG": "2"], "TILER_ACCESS_LOG=\"2\" is not on or off"),
            (["TILER_CORS_ORIGIN": ""], "TILER_CORS_ORIGIN is set but empty"),
            (["TILER_CORS_ORIGIN": ",,,"], "TILER_CORS_ORIGIN=\",,,\" has an empty item"),
            (["TILER_PORT": ""], "TILER_PORT is set but empty"),
            (["TILER_ROOT": ""], "TILER_ROOT is set but empty"),
            (["TILER_PORT": "-1"], "--port must be 0…65535 (got -1) (from TILER_PORT=\"-1\")"),
            (["TILER_PORT": "http"], "(from TILER_PORT=\"http\")"),
            (["TILER_ROOT": fixtures.path("nowhere")], "is not a folder (from TILER_ROOT="),
        ]
        for (environment, message) in cases {
            let result = try TilerProcess.run(["serve"], environment: environment)
            #expect(result.status == 64, "\(environment): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains(message), "\(environment): \(result.stderr)")
        }
    }

    @Test func repeatedRenderFailuresAreLoggedOccasionally() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let root = try Self.pyramid(fixtures)
        // The levels a small render reads lead out of ROOT: every such render fails.
        for level in 6...10 {
            let folder = root + "/pic_files/\(level)"
            let outside = fixtures.path("outside-\(level)")
            try FileManager.default.moveItem(atPath: folder, toPath: outside)
            try FileManager.default.createSymbolicLink(atPath: folder, withDestinationPath: outside)
        }
        let server = try Running(["serve", root, "--port", "0"])
        defer { server.stop() }
        var statuses: Set<Int> = []
        for index in 0..<20 {
            statuses.insert(try ServeReSliceTests.get(server.base + "/iiif/3/pic/full/\(300 + index),/0/default.jpg").status)
        }
        server.stop()
        #expect(statuses == [500], "\(statuses)")
        let failures = server.stderr.split(separator: "\n").filter { $0.contains("Rendering a IIIF image of pic failed") }
        #expect(failures.count == 1, "20 failures in a loop, at most one line per 10 s: \(server.stderr)")
    }

    /// libtiff's messages that bypass a handle's own handlers (its ZIP codec, OpenSlide's libtiff handles) reach stderr
    /// only as the server's own log records: with `--log-format json`, every stderr line is JSON.
    @Test func libraryMessagesNeverReachStderrOutsideTheLog() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let root = fixtures.path("root")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        // A two-level Deflate TIFF whose tile (1, 0) of the full resolution is zeros.
        let script = """
            import sys, numpy, tifffile
            image = (numpy.arange(512 * 512 * 3) % 251).astype(numpy.uint8).reshape(512, 512, 3)
            with tifffile.TiffWriter(sys.argv[1]) as tiff:
                tiff.write(image, tile=(256, 256), compression="zlib", photometric="rgb")
                tiff.write(image[::2, ::2], tile=(256, 256), compression="zlib", photometric="rgb", subfiletype=1)
            with tifffile.TiffFile(sys.argv[1]) as tiff:
                page = tiff.pages[0]
                offset, count = page.dataoffsets[1], page.databytecounts[1]
            with open(sys.argv[1], "r+b") as f:
                f.seek(offset)
                f.write(bytes(count))
            """
        let made = try ExternalTool.run("/usr/bin/python3", ["-c", script, root + "/zeroed.tif"])
        #expect(made.status == 0, "\(made.output)")
        let environment = ProcessInfo.processInfo.environment
        let slides = (environment["TILER_SLIDE_FIXTURES"] ?? NSHomeDirectory() + "/.cache/tiler/openslide-python-1.2.0") + "/tests"
        try FileManager.default.copyItem(atPath: slides + "/unreadable.svs", toPath: root + "/unreadable.svs")
        let server = try Running(["serve", root, "--port", "0", "--log-format", "json"])
        defer { server.stop() }
        var statuses: [Int] = []
        for _ in 0..<3 {
            statuses.append(try ServeReSliceTests.get(server.base + "/images/zeroed_files/9/1_0.jpg").status)
            statuses.append(try ServeReSliceTests.get(server.base + "/api/images/unreadable/associated/thumbnail").status)
        }
        server.stop()
        #expect(statuses == [500, 500, 500, 500, 500, 500], "\(statuses)")
        let lines = server.stderr.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("{") }, "\(server.stderr)")
        #expect(server.stderr.contains("ZIPDecode"), "the failure's own reason, in a record: \(server.stderr)")
    }

    @Test func sighupRescansAndKeepsServing() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let root = try Self.pyramid(fixtures)
        let server = try Running(["serve", root, "--port", "0", "--backlog", "64", "--shutdown-grace", "2"])
        defer { server.stop() }
        kill(server.process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(10)
        while !server.stderr.contains("SIGHUP: rescanned ROOT"), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(server.stderr.contains("SIGHUP: rescanned ROOT (0 added, 0 removed)"), "\(server.stderr)")
        #expect(server.process.isRunning, "SIGHUP must not stop the server")
        #expect(try ServeReSliceTests.get(server.base + "/healthz").status == 200)
        for (option, value) in [("--backlog", "0"), ("--shutdown-grace", "0"), ("--shutdown-grace", "-1")] {
            let bad = try TilerProcess.run(["serve", root, option, value])
            #expect(bad.status != 0 && bad.stderr.contains(option), "\(option) \(value): \(bad.stderr)")
        }
    }

    /// The response headers (lower-cased names) of one request.
    static func headers(_ request: URLRequest) throws -> [String: String] {
        let result = Locked<[String: String]>([:])
        let done = DispatchSemaphore(value: 0)
        URLSession(configuration: .ephemeral).dataTask(with: request) { _, response, _ in
            var headers: [String: String] = [:]
            for (key, value) in (response as? HTTPURLResponse)?.allHeaderFields ?? [:] {
                headers[String(describing: key).lowercased()] = String(describing: value)
            }
            result.value = headers
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + 30)
        return result.value
    }
}
