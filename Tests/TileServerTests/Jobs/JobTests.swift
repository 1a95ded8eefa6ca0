import Foundation
import Testing

@testable import SliceJobs
@testable import TileServer
@testable import TileSources

/// Slicing jobs on a real server: the event stream, cancelling (queued and running), replacing an image, a
/// pyramidal TIFF served in place without slicing, a full disk, and what a restart finds of jobs a killed server left.
@Suite(.serialized) struct JobTests {
    /// The events of `/api/jobs/ID/events` until the server ends the stream: each `data:` line's JSON and when it came.
    static func events(_ server: Server, _ id: String) throws -> [(line: String, at: ContinuousClock.Instant)] {
        let connection = try RawHTTPConnection(port: server.port, timeout: 60)
        try connection.request("/api/jobs/\(id)/events")
        var text = ""
        var events: [(line: String, at: ContinuousClock.Instant)] = []
        for read in try connection.readUntilClose() {
            text += String(decoding: read.bytes, as: UTF8.self)
            while let end = text.range(of: "\n\n"), let start = text.range(of: "data: "), start.upperBound <= end.lowerBound {
                events.append((String(text[start.upperBound..<end.lowerBound]), read.at))
                text = String(text[end.upperBound...])
            }
        }
        return events
    }

    /// An event's JSON object.
    static func json(_ line: String) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]) ?? [:]
    }

    @Test func eventsFollowAJobToItsEndAtMostTenASecond() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        let image = try UploadFixture.png(width: 2500, height: 1800)
        try await withServer(fixture.secured.pyramids, fixture.secured.configuration) { server in
            let response = try await blocking { try UploadFixture.put(server, "streamed", body: image, token: token) }
            let id = try #require((try response.json() as? [String: Any])?["id"] as? String)
            let stream = try await blocking { try Self.events(server, id) }
            let states = stream.map { Self.json($0.line)["state"] as? String ?? "" }
            #expect(states.last == "done", "\(states)")
            #expect(states.filter { $0 == "done" }.count == 1, "the stream ends after the terminal state")
            let fractions = stream.map { Self.json($0.line)["fraction"] as? Double ?? -1 }
            #expect(fractions == fractions.sorted(), "progress only grows")
            if let first = stream.first?.at, let last = stream.last?.at, stream.count > 2 {
                let seconds = Double((last - first).components.seconds) + Double((last - first).components.attoseconds) / 1e18
                #expect(Double(stream.count - 1) <= seconds * 10 + 1.5, "\(stream.count) events in \(seconds) s")
            }
            // A finished job's stream: its state, then the end.
            let again = try await blocking { try Self.events(server, id) }
            #expect(again.count == 1 && Self.json(again.first?.line ?? "")["state"] as? String == "done")
            let head = try fetch(server, "/api/jobs/\(id)/events", method: "HEAD")
            #expect(head.header("Content-Type") == "text/event-stream" && head.header("Cache-Control") == "no-store")
        }
    }

    @Test func cancellingStopsTheSliceAndLeavesNothing() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        let small = try UploadFixture.png(width: 300, height: 300)
        // The first job is held as it starts slicing, so the second is surely still waiting and the first running.
        try await fixture.whileHeld(upload: "running", body: try UploadFixture.png(width: 3000, height: 3000)) { server, running, gate in
            let second = try await blocking { try UploadFixture.put(server, "waiting", body: small, token: token) }
            let waiting = try #require((try second.json() as? [String: Any])?["id"] as? String)
            #expect(try UploadFixture.job(server, waiting)["state"] as? String == "queued", "one slicing thread: the second waits")
            let refused = try fetch(server, "/api/jobs/\(waiting)", method: "DELETE")
            #expect(refused.status == 401, "cancelling needs the write token")
            let cancelled = try fetch(server, "/api/jobs/\(waiting)", method: "DELETE", headers: ["Authorization: Bearer \(token)"])
            #expect(cancelled.status == 200 && cancelled.text.contains("\"state\":\"cancelled\""))
            #expect(try UploadFixture.job(server, running)["state"] as? String == "slicing")
            let stop = try fetch(server, "/api/jobs/\(running)", method: "DELETE", headers: ["Authorization: Bearer \(token)"])
            #expect(stop.status == 200 && stop.text.contains("\"state\":\"cancelled\""), "\(stop.text)")
            gate.release()
            let end = try await UploadFixture.waitForEnd(server, running)
            #expect(end["state"] as? String == "cancelled")
            // The slicer stops promptly: the name is free again once it has removed its staging folder.
            #expect(await eventually(within: 5) { !UploadFixture.contents(of: fixture.root).contains { $0.contains("running") } })
        }
        let left = UploadFixture.contents(of: fixture.root).filter { $0.contains("running") || $0.contains("waiting") || $0.hasSuffix(".upload") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func replaceServesTheOldPyramidUntilTheNewOneIsComplete() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        try await withServer(fixture.secured.pyramids, fixture.secured.configuration) { server in
            let read = try fixture.secured.token("a/*")
            let before = try fetch(server, "/api/images?token=\(read)").text
            let response = try await blocking {
                try UploadFixture.put(server, "a/one", body: try UploadFixture.png(width: 900, height: 300), token: token, query: "?replace=1")
            }
            #expect(response.status == 202)
            let id = try #require((try response.json() as? [String: Any])?["id"] as? String)
            let end = try await UploadFixture.waitForEnd(server, id)
            #expect(end["state"] as? String == "done")
            let after = try fetch(server, "/api/images?token=\(read)").text
            #expect(after != before && after.contains("\"width\":900"), "\(after)")
            #expect(try fetch(server, (end["dzi"] as? String ?? "") + "?token=\(read)").status == 200)
        }
    }

    @Test func aPyramidalTIFFIsServedInPlaceWithoutSlicing() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        try fixture.secured.pyramids.addVipsTIFF(
            "../made.tif", picture: UploadFixture.picture(width: 700, height: 500),
            options: ["--tile", "--pyramid", "--compression", "jpeg", "--tile-width", "256", "--tile-height", "256"])
        let tiff = try Array(Data(contentsOf: URL(fileURLWithPath: fixture.secured.pyramids.base + "/made.tif")))
        try await withServer(fixture.secured.pyramids, fixture.secured.configuration) { server in
            let response = try await blocking { try UploadFixture.put(server, "pub/scan", body: tiff, token: token) }
            #expect(response.status == 202)
            let id = try #require((try response.json() as? [String: Any])?["id"] as? String)
            let end = try await UploadFixture.waitForEnd(server, id)
            #expect(end["state"] as? String == "done" && end["tiles"] as? Int == 0, "no slicing: \(end)")
            let dzi = try #require(end["dzi"] as? String)
            #expect(try fetch(server, dzi).status == 200)
        }
        #expect(FileManager.default.fileExists(atPath: fixture.root + "/pub/scan.tif"))
    }

    @Test func aFullDiskIs507AndStoresNothing() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        let mount = fixture.secured.pyramids.base + "/small-disk"
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        // A real full disk: a 1 MiB tmpfs as ROOT (the tests run as root, as CI does).
        let mounted = try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount])
        try #require(mounted, "mount -t tmpfs needs root")
        defer { _ = try? Self.run("/bin/umount", [mount]) }
        var configuration = fixture.secured.configuration
        configuration.root = mount
        let image = try UploadFixture.png(width: 1000, height: 1000)
        try await withServer(fixture.secured.pyramids, configuration) { server in
            let response = try await blocking { try UploadFixture.put(server, "pub/huge", body: image, token: token) }
            #expect(response.status == 507 && response.text.contains("disk"), "\(response.status) \(response.text)")
            let jobs = try fetch(server, "/api/jobs?token=\(token)").text
            #expect(jobs.contains("\"state\":\"failed\"") && jobs.contains("out of disk space"))
        }
        #expect(UploadFixture.contents(of: mount).allSatisfy { $0 == ".tiler-jobs" || $0.hasSuffix(".job") })
    }

    @Test func aRestartListsWhatAKilledServerLeftAsInterruptedAndSweepsIt() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        let folder = JobRecord.folder(root: fixture.root)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // What kill -9 leaves mid-job: the record says slicing, the body is staged, the slicer's hidden folder is half
        // full (without an owner file, two days old: as a slice from before owner files, swept by age).
        let record = JobRecord(
            id: "killedjob00000000000000", name: "a/killed", source: "upload", state: "slicing", error: nil, created: 1_700_000_000)
        record.save(root: fixture.root)
        try Data(repeating: 1, count: 1000).write(to: URL(fileURLWithPath: folder + "/killedjob00000000000000.upload"))
        let staging = fixture.root + "/a/.killed.tiler-Ab12Cd"
        try FileManager.default.createDirectory(atPath: staging + "/killed_files/0", withIntermediateDirectories: true)
        try Data([1]).write(to: URL(fileURLWithPath: staging + "/killed_files/0/0_0.jpg"))
        var old = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        utimensat(AT_FDCWD, staging, &old, 0)
        // Killed between creating its staging folder and writing the owner file: new, empty, owner-less — the killed
        // job's, so removed at once; another name's such folder waits its day (a slice may be creating it now).
        let unowned = fixture.root + "/a/.killed.tiler-Xy34Zw"
        let another = fixture.root + "/a/.other.tiler-Xy34Zw"
        for path in [unowned, another] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        try await withServer(fixture.secured.pyramids, fixture.secured.configuration) { server in
            let list = try fetch(server, "/api/jobs", headers: ["Authorization: Bearer \(token)"]).text
            #expect(list.contains("\"id\":\"killedjob00000000000000\"") && list.contains("\"state\":\"interrupted\""), "\(list)")
        }
        #expect(!FileManager.default.fileExists(atPath: staging) && !FileManager.default.fileExists(atPath: unowned))
        #expect(FileManager.default.fileExists(atPath: another))
        #expect(!FileManager.default.fileExists(atPath: folder + "/killedjob00000000000000.upload"))
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

extension JobTests {
    /// A server that slices for months keeps a bounded job list: beyond `endedJobsKept` ended jobs, the oldest ended
    /// ones are forgotten (list, URL and record); unfinished ones never are. No socket: the queue itself.
    @Test func theOldestEndedJobsAreForgottenBeyondTheLimit() throws {
        let fixture = try PyramidFixture()
        let queue = JobQueue(
            root: fixture.root, maxDepth: 4, threads: 1, catalog: ImageCatalog(root: fixture.root, maxDepth: 4, logger: .init(label: "t")),
            logger: .init(label: "t"), onPublished: {}, endedJobsKept: 2)
        defer { queue.shutdown() }
        var jobs: [SliceJob] = []
        for index in 0..<5 {
            let job = try queue.add(name: "kept/\(index)", source: .upload, replace: false, input: nil, state: .receiving).get()
            jobs.append(job)
        }
        // Jobs 0, 1, 3 and 4 end, in that order; job 2 is still receiving.
        for index in [0, 1, 3, 4] {
            jobs[index].fail("ended \(index)")
            queue.finished(jobs[index])
        }
        let listed = Set(queue.all().jobs.map(\.id))
        #expect(listed == Set([jobs[2].id, jobs[3].id, jobs[4].id]), "the two newest ended and the unfinished one")
        #expect(queue.job(id: jobs[0].id[...]) == nil && queue.job(id: jobs[2].id[...]) != nil)
        let records = (try FileManager.default.contentsOfDirectory(atPath: JobRecord.folder(root: fixture.root))).filter { $0.hasSuffix(".job") }
        #expect(Set(records) == Set([2, 3, 4].map { "\(jobs[$0].id).job" }), "\(records)")
    }
}
