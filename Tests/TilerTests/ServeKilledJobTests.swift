import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A real `tiler serve` killed with SIGKILL in the middle of a slicing job (drop and view, item 6): after the next
/// start, the job list says the job was interrupted, nothing it staged is left anywhere under ROOT, the image was never
/// published, and the rest of the catalog is served as before.
@Suite struct ServeKilledJobTests {
    /// A request through `session` with an optional body (waiting at most 60 s): status and body.
    static func send(_ url: String, method: String = "GET", token: String? = nil, body: Data? = nil) throws -> (status: Int, body: Data) {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.httpBody = body
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let result = Locked<(Int, Data)>((0, Data()))
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: request) { data, response, _ in
            result.value = ((response as? HTTPURLResponse)?.statusCode ?? 0, data ?? Data())
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + 60)
        return result.value
    }

    /// Every path under `root` (relative), hidden ones included.
    static func contents(of root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
    }

    @Test func aServerKilledMidJobLeavesNothingAndSaysSoAtTheNextStart() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (root, policy) = try PrivateImagesCommandTests.setUp(fixtures)
        let before = Self.contents(of: root)
        // Big enough that its slice (a coarse pass, then the full one) lasts seconds: the kill lands mid-job.
        let photo = fixtures.path("big.jpg")
        #expect(try TilerProcess.run(["sample", photo, "--size", "12000x9000", "--quality", "60", "--quiet"]).status == 0)
        let write = try TilerProcess.run(["token", "--access", policy, "--images", "*", "--scope", "write", "--expires", "1h"])
        let token = write.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let (first, _, base) = try ServeCommandTests().start(["serve", root, "--port", "0", "--access", policy])
        defer { if first.isRunning { first.terminate() } }
        try #require(base.hasPrefix("http://"), "the server started")
        let accepted = try Self.send(
            base + "api/images/drops/big", method: "PUT", token: token, body: try Data(contentsOf: URL(fileURLWithPath: photo)))
        try #require(accepted.status == 202, "\(String(decoding: accepted.body, as: UTF8.self))")
        let id = try #require((try JSONSerialization.jsonObject(with: accepted.body) as? [String: Any])?["id"] as? String)
        var state = ""
        let deadline = Date().addingTimeInterval(60)
        while state != "slicing" && Date() < deadline {
            let job = try JSONSerialization.jsonObject(with: try Self.send(base + "api/jobs/\(id)").body) as? [String: Any]
            state = job?["state"] as? String ?? ""
            if state != "slicing" { Thread.sleep(forTimeInterval: 0.02) }
        }
        try #require(state == "slicing", "the job was slicing when the server was killed (it was \(state))")
        let midJob = Self.contents(of: root)
        #expect(midJob.contains { $0.hasPrefix(".tiler-jobs/") && $0.hasSuffix(".upload") }, "the upload is staged: \(midJob)")
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(first.terminationReason == .uncaughtSignal)

        let (second, _, again) = try ServeCommandTests().start(["serve", root, "--port", "0", "--access", policy])
        defer { if second.isRunning { second.terminate() } }
        try #require(again.hasPrefix("http://"), "the server started again")
        let list = try JSONSerialization.jsonObject(with: try Self.send(again + "api/jobs", token: token).body) as? [String: Any]
        let jobs = list?["jobs"] as? [[String: Any]] ?? []
        let record = jobs.first { $0["id"] as? String == id }
        #expect(record?["state"] as? String == "interrupted", "the job list says so: \(jobs)")
        // Asked by its id (a client that polled it across the restart), and by its event stream: how it ended.
        let polled = try Self.send(again + "api/jobs/\(id)")
        #expect(polled.status == 200 && String(decoding: polled.body, as: UTF8.self).contains("\"state\":\"interrupted\""))
        let events = try Self.send(again + "api/jobs/\(id)/events")
        #expect(events.status == 200 && String(decoding: events.body, as: UTF8.self).hasPrefix("event: job\ndata: {"))
        // Nothing staged is left: the upload, the coarse pyramid, the half-built pyramid; only the job's record.
        let after = Self.contents(of: root)
        let left = after.filter { !before.contains($0) && !($0.hasPrefix(".tiler-jobs/") && $0.hasSuffix(".job")) && $0 != ".tiler-jobs" }
        #expect(left.isEmpty, "left after the restart: \(left)")
        // Never published; the rest of the catalog as before.
        let reader = try TilerProcess.run(["token", "--access", policy, "--images", "*", "--expires", "1h"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let images = String(decoding: try Self.send(again + "api/images", token: reader).body, as: UTF8.self)
        #expect(!images.contains("drops/big") && images.contains("\"name\":\"slides/pic\""), "\(images)")
        let dzi = try #require(
            (try JSONSerialization.jsonObject(with: Data(images.utf8)) as? [[String: Any]])?.first { $0["name"] as? String == "slides/pic" }?["dzi"]
                as? String)
        #expect(try Self.send(String(again.dropLast()) + dzi, token: reader).status == 200)
    }
}
