import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct ServeCommandTests {
    /// Starts `tiler arguments…` and waits for the line announcing its URL.
    func start(_ arguments: [String], in directory: String? = nil) throws -> (Process, Pipe, String) {
        let process = Process()
        process.executableURL = TilerProcess.executable
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while !text.contains("\n"), Date() < deadline, process.isRunning {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        // Both startup lines may arrive in one read: split on any white space, newlines included.
        let url = text.split(whereSeparator: { $0.isWhitespace }).first { $0.hasPrefix("http://") }.map(String.init)
        return (process, out, url ?? "")
    }

    func get(_ url: String) throws -> (Int, Data) {
        let result = Locked<(Int, Data)>((0, Data()))
        let done = DispatchSemaphore(value: 0)
        guard let address = URL(string: url) else { return (0, Data()) }
        URLSession.shared.dataTask(with: address) { data, response, _ in
            result.value = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data())
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + 30)
        return result.value
    }

    @Test func servesASlicedPyramidAndStopsGracefullyOnSIGTERM() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("pic.jpg", width: 600, height: 400, format: .jpeg())
        let root = fixtures.path("root")
        #expect(try TilerProcess.run(["slice", input, "-o", root, "--quiet"]).status == 0)
        let (process, _, url) = try start(["serve", root, "--port", "0"])
        defer { if process.isRunning { process.terminate() } }
        #expect(url.hasPrefix("http://127.0.0.1:"), "no URL announced")
        let (status, body) = try get(url + "api/images")
        #expect(status == 200)
        #expect(String(decoding: body, as: UTF8.self).contains("\"name\":\"pic\""))
        let (tileStatus, tile) = try get(url + "images/pic_files/10/0_0.jpg")
        #expect(tileStatus == 200 && tile.starts(with: [0xFF, 0xD8]))
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
    }

    /// Run from any folder, without `--public`, the built `tiler serve` finds the viewer of the checkout it was built
    /// in: `/` is the app, not a 404.
    @Test func servesTheViewerWhenRunOutsideTheCheckout() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let input = try fixtures.image("pic.jpg", width: 300, height: 200, format: .jpeg())
        let root = fixtures.path("root")
        #expect(try TilerProcess.run(["slice", input, "-o", root, "--quiet"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: fixtures.path("Public")))
        let (process, _, url) = try start(["serve", root, "--port", "0"], in: fixtures.path(""))
        defer { if process.isRunning { process.terminate() } }
        let (status, body) = try get(url)
        #expect(status == 200 && String(decoding: body, as: UTF8.self).contains("<html"), "\(status)")
        #expect(try get(url + "js/tiler-viewer.js").0 == 200)
    }

    /// The demo slices (with its own signal handling) and then serves: SIGTERM must still reach the server.
    @Test func demoServesAfterSlicingAndStopsOnSIGTERM() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (process, _, url) = try start(["demo", "--size", "600x400", "--cache", fixtures.path("cache"), "--port", "0"])
        defer { if process.isRunning { process.terminate() } }
        #expect(url.hasPrefix("http://127.0.0.1:"), "no URL announced")
        #expect(try get(url + "healthz").0 == 200)
        kill(process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(15)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        #expect(!process.isRunning, "the demo server ignored SIGTERM")
        if !process.isRunning {
            #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        }
    }

    @Test func demoPreparesItsPyramidOnce() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let cache = fixtures.path("cache")
        let first = try TilerProcess.run(["demo", "--size", "700x500", "--cache", cache, "--no-serve"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: cache + "/pyramids/demo-700x500.dzi"))
        let second = try TilerProcess.run(["demo", "--size", "700x500", "--cache", cache, "--no-serve"])
        #expect(second.status == 0)
        #expect(second.stderr.contains("using the pyramid"))
    }

    @Test func badOptionsFailClearly() throws {
        let result = try TilerProcess.run(["serve", "/definitely/not/here", "--port", "0"])
        #expect(result.status != 0 && !result.signalled)
        #expect(result.stderr.contains("not a folder"))
        let port = try TilerProcess.run(["serve", ".", "--port", "70000"])
        #expect(port.status != 0 && port.stderr.contains("--port"))
        for (option, value) in [("--threads", "0"), ("--file-threads", "0"), ("--open-files", "-1"), ("--iiif-render-mb", "-1")] {
            let bad = try TilerProcess.run(["serve", ".", "--port", "0", option + "=" + value])
            #expect(bad.status != 0 && !bad.signalled && bad.stderr.contains(option))
        }
    }
}
