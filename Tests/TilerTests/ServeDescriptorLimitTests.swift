import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A catalog whose level folders far outnumber the descriptors the process may open is served whole: the real
/// `tiler serve`, started under `prlimit --nofile=256:256` (a limit for that child only), serves every tile of every
/// pyramid, lists them all page by page, holds fewer descriptors than its limit throughout, and stops serving a level
/// folder moved out of ROOT after its next rescan.
@Suite struct ServeDescriptorLimitTests {
    static let limit = 256
    static let copies = 250

    /// A client reusing one session (few connections) for many requests.
    final class Client: @unchecked Sendable {
        // URLSession is thread-safe; the class only keeps it.
        private let session: URLSession

        init() {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.urlCache = nil
            configuration.httpMaximumConnectionsPerHost = 2
            session = URLSession(configuration: configuration)
        }

        deinit { session.finishTasksAndInvalidate() }

        func get(_ url: String) throws -> (status: Int, headers: [String: String], body: Data) {
            try ServeReSliceTests.get(url, session: session)
        }
    }

    /// The descriptors process `pid` holds.
    static func descriptors(of pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// ROOT with `pic` (600 × 400: levels 0…10) and ``copies`` copies of it, `p000` …, their tiles hard-linked.
    static func catalog(_ fixtures: Fixtures) throws -> String {
        let root = try ServeLoggingTests.pyramid(fixtures)
        for index in 0..<copies {
            let name = String(format: "p%03d", index)
            let copy = Process()
            copy.executableURL = URL(fileURLWithPath: "/bin/cp")
            copy.arguments = ["-al", root + "/pic_files", root + "/\(name)_files"]
            try copy.run()
            copy.waitUntilExit()
            #expect(copy.terminationStatus == 0)
            try FileManager.default.copyItem(atPath: root + "/pic.dzi", toPath: root + "/\(name).dzi")
        }
        return root
    }

    @Test func aCatalogBeyondTheDescriptorLimitIsServedWhole() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let root = try Self.catalog(fixtures)
        let names = ["pic"] + (0..<Self.copies).map { String(format: "p%03d", $0) }
        let server = try ServeLoggingTests.Running(["serve", root, "--port", "0"], descriptorLimit: Self.limit)
        defer { server.stop() }
        try #require(!server.base.isEmpty, "no URL announced: \(server.stderr)")
        let pid = server.process.processIdentifier
        let client = Client()

        // Every page, following `Link: …; rel="next"`.
        var listed: [String] = []
        var next: String? = "/api/images?limit=100"
        while let target = next, listed.count <= names.count {
            let page = try client.get(server.base + target)
            #expect(page.status == 200 && page.headers["x-total-count"] == "\(names.count)")
            let entries = try #require(try JSONSerialization.jsonObject(with: page.body) as? [[String: Any]])
            listed += entries.compactMap { $0["name"] as? String }
            next = page.headers["link"]?.split(separator: ",").first { $0.contains("rel=\"next\"") }
                .flatMap { $0.split(separator: "<").last?.split(separator: ">").first.map(String.init) }
        }
        #expect(listed == names.sorted())

        // Every level of every pyramid: 2,761 level folders for 256 descriptors.
        let expected = try (0...10).map { try Data(contentsOf: URL(fileURLWithPath: root + "/pic_files/\($0)/0_0.jpg")) }
        var most = 0
        var wrong: [String] = []
        for name in names {
            for level in 0...10 {
                let tile = try client.get(server.base + "/images/\(name)_files/\(level)/0_0.jpg")
                if tile.status != 200 || tile.body != expected[level] { wrong.append("\(name)/\(level): \(tile.status)") }
            }
            most = max(most, Self.descriptors(of: pid))
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(10))")
        #expect(most > 0 && most < Self.limit, "\(most) descriptors held")

        // A level folder moved out of ROOT while held open (a tile not asked for yet opens it): not served after the
        // next rescan (every second by default), neither its tiles in memory nor files read through it.
        let moved = "/images/p007_files/10/0_0.jpg"
        #expect(try client.get(server.base + "/images/p007_files/10/2_1.jpg").status == 200)
        try FileManager.default.moveItem(atPath: root + "/p007_files/10", toPath: fixtures.path("level-10"))
        let deadline = Date().addingTimeInterval(20)
        var status = 200
        while status == 200 && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            status = try client.get(server.base + moved).status
        }
        #expect(status == 404)
        #expect(try client.get(server.base + "/images/p007_files/10/2_1.jpg").status == 404)
        #expect(try client.get(server.base + "/images/p008_files/10/0_0.jpg").status == 200)
        #expect(server.process.isRunning, "\(server.stderr)")
    }
}
