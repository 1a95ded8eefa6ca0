import Foundation
import Logging
import NIOCore
import ObjectStore
import ObjectStoreTestSupport
import Testing

@testable import TileServer

/// A store that is down, silent or refusing, against a real Ceph RADOS Gateway behind a real TCP proxy that plays the
/// faults (``FaultProxy``): that image's requests fail clearly — 502, 503 or 504, with `Retry-After` where it applies,
/// logged once per image — never as a missing tile or a short one; a local image served beside keeps answering; and
/// the server recovers by itself when the store does.
@Suite(.serialized) struct ObjectStoreFaultTests {
    /// Short enough that a silent store is a 504 within seconds, long enough for a loaded gateway; three attempts with
    /// waits of at most 200 ms between them; a store that stopped answering left alone for 3 s (long enough for a test
    /// to see it on a loaded machine), then probed.
    static let options: ObjectStoreOptions = {
        var options = ObjectStoreOptions(
            maxConcurrentRequests: 8, connectTimeout: .seconds(1), readTimeout: .seconds(2), requestTimeout: .seconds(4),
            retry: RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200)))
        options.breaker = StoreBreaker(firstPause: .seconds(3))
        return options
    }()

    /// A server of a bucket holding `imgs/alpha.szi` and `imgs/maps/beta.szi` (the same 1000 × 700 archive of 300-byte
    /// tiles), read through a proxy that passes everything at first, beside a ROOT holding the local pyramid `gamma`
    /// (512 × 512, 100-byte tiles). Only `server.rescan()` lists the bucket again.
    private func withStore(logger: Logger? = nil, _ body: (Server, FaultProxy) async throws -> Void) async throws {
        let gateway = try TestGateway.shared()
        let client = try await gateway.makeBucket("faults")
        let archives = try PyramidFixture()
        try archives.addArchive("alpha", width: 1000, height: 700, tileBytes: 300)
        let archive = ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: archives.root + "/alpha.szi")))
        _ = try await client.put("imgs/alpha.szi", body: archive)
        _ = try await client.put("imgs/maps/beta.szi", body: archive)
        let local = try PyramidFixture()
        try local.addPyramid("gamma", width: 512, height: 512)
        let proxy = try await FaultProxy(upstream: gateway.endpoint)
        var configuration = testConfiguration(root: local.root)
        configuration.objectRoots = ["s3://\(client.configuration.location.bucket)/imgs"]
        configuration.environment = [
            "AWS_ACCESS_KEY_ID": gateway.accessKey, "AWS_SECRET_ACCESS_KEY": gateway.secretKey, "AWS_ENDPOINT_URL": proxy.origin,
            "AWS_REGION": gateway.region,
        ]
        configuration.rescanInterval = .seconds(3600)
        configuration.fullRescanInterval = .seconds(3600)
        configuration.storeRescanInterval = .seconds(3600)
        configuration.objectStoreOptions = Self.options
        if let logger { configuration.logger = logger }
        do {
            let server = try await Server.start(configuration)
            do {
                try await body(server, proxy)
            } catch {
                await server.shutdown()
                throw error
            }
            await server.shutdown()
        } catch {
            await proxy.close()
            try? await client.shutdown()
            throw error
        }
        await proxy.close()
        try? await client.shutdown()
        withExtendedLifetime((archives, local)) {}
    }

    /// One `GET` on a fresh connection that waits up to 30 s for the answer (a store failing slowly), on a Dispatch
    /// thread.
    private func get(_ server: Server, _ target: String) async throws -> RawResponse {
        let port = server.port
        return try await blocking {
            let connection = try RawHTTPConnection(port: port, timeout: 30)
            try connection.request(target, method: "GET", headers: [])
            return try connection.readResponse(head: false)
        }
    }

    /// Tile `column`_`row` of level 10 of `image` (alpha or maps/beta).
    private func tile(_ image: String, _ column: Int, _ row: Int) -> String {
        "/images/\(image)_files/10/\(column)_\(row).jpg"
    }

    /// The bytes that tile has in the archive.
    private func bytes(_ column: Int, _ row: Int) -> [UInt8] {
        PyramidFixture.tileBytes(level: 10, column: column, row: row, count: 300)
    }

    /// Polls until tile `column`_`row` of `image` answers 200 with its bytes (the store back, no restart).
    private func recovers(_ server: Server, _ image: String, _ column: Int, _ row: Int) async -> Bool {
        await eventually(within: 30) { (try? fetch(server, tile(image, column, row)))?.body == bytes(column, row) }
    }

    @Test func aStoreDownFailsItsMissesWith503WhileCachedAndLocalTilesServe() async throws {
        try await withStore { server, proxy in
            // Cached while the store is up (asked again if a loaded machine made the store slower than its timeouts).
            #expect(await recovers(server, "alpha", 0, 0), "the store is up: its tile is read and kept")
            try await proxy.set(.down)
            async let refused = get(server, tile("alpha", 1, 0))
            // While that miss waits for a store that refuses every connection: the local image answers, as do the
            // store's cached tiles.
            for column in 0..<2 {
                for row in 0..<2 {
                    let local = try await get(server, "/images/gamma_files/9/\(column)_\(row).jpg")
                    #expect(local.status == 200 && local.body == PyramidFixture.tileBytes(level: 9, column: column, row: row, count: 100))
                }
            }
            let hit = try await get(server, tile("alpha", 0, 0))
            #expect(hit.status == 200 && hit.header("X-Cache") == "hit" && hit.body == bytes(0, 0))
            let down = try await refused
            #expect(down.status == 503 && down.header("Retry-After") == "1", "\(down.status) \(down.text)")
            #expect(try await get(server, tile("maps/beta", 1, 0)).status == 503)
            #expect(try await get(server, "/images/gamma.dzi").status == 200)
            try await proxy.set(.none)
            #expect(await recovers(server, "alpha", 1, 0))
            #expect(try await get(server, tile("maps/beta", 1, 0)).body == bytes(1, 0))
        }
    }

    @Test func aSilentStoreIsA504OnceTheReadTimeoutRunsOut() async throws {
        try await withStore { server, proxy in
            try await proxy.set(.silent)
            let before = proxy.requests.count
            let silent = try await get(server, tile("alpha", 2, 1))
            #expect(silent.status == 504 && silent.header("Retry-After") == "1", "\(silent.status) \(silent.text)")
            #expect(silent.text.contains("did not answer in time"))
            // Each of the three attempts waited for its read timeout.
            #expect(proxy.requests.count - before == 3, "\(proxy.requests)")
            #expect(try await get(server, "/images/gamma_files/9/0_0.jpg").status == 200)
            try await proxy.set(.none)
            #expect(await recovers(server, "alpha", 2, 1))
        }
    }

    /// After three requests in a row that got no answer, the store is left alone for a while: a miss then fails at once
    /// with 503 and `Retry-After`, without asking the store, whose return a probe finds.
    @Test func aStoreThatStoppedAnsweringIsLeftAloneThenProbed() async throws {
        try await withStore { server, proxy in
            try await proxy.set(.silent)
            let silent = try await get(server, tile("alpha", 2, 1))
            #expect(silent.status == 504)
            let before = proxy.requests.count
            let paused = try await get(server, tile("alpha", 3, 1))
            #expect(paused.status == 503 && paused.header("Retry-After") != nil, "\(paused.status) \(paused.text)")
            #expect(proxy.requests.count == before, "the store was not asked: \(proxy.requests.suffix(2))")
            try await proxy.set(.none)
            #expect(await recovers(server, "alpha", 3, 1))
        }
    }

    @Test func theStoresRefusalsAreTheGatewaysAnswers() async throws {
        // What the store answers, what the client gets, and how many times the store was asked.
        let cases: [(fault: FaultProxy.Fault, status: Int, retryAfter: String?, attempts: Int)] = [
            (.answer(status: 403, code: "AccessDenied"), 502, nil, 1),
            (.answer(status: 503, code: "SlowDown", headers: ["Retry-After: 7"]), 503, "7", 3),
            (.answer(status: 500, code: "InternalError"), 503, "1", 3),
            // Gone or replaced since it was indexed: unavailable until the next rescan.
            (.answer(status: 404, code: "NoSuchKey"), 503, "1", 1),
            (.answer(status: 412, code: "PreconditionFailed"), 503, "1", 1),
        ]
        try await withStore { server, proxy in
            for (column, expected) in cases.enumerated() {
                try await proxy.set(expected.fault)
                let before = proxy.requests.count
                let answer = try await get(server, tile("alpha", column % 4, column / 4))
                #expect(answer.status == expected.status, "\(expected.fault): \(answer.status) \(answer.text)")
                #expect(answer.header("Retry-After") == expected.retryAfter, "\(expected.fault)")
                #expect(proxy.requests.count - before == expected.attempts, "\(expected.fault): \(proxy.requests.count - before) requests")
                // Never a missing tile, and never the store's words.
                #expect(!answer.text.contains("AccessDenied") && !answer.text.contains("injected"))
            }
            try await proxy.set(.none)
            // Nothing of the failures was kept: every one of those tiles is read again, whole.
            for column in cases.indices {
                let answer = try await get(server, tile("alpha", column % 4, column / 4))
                #expect(answer.status == 200 && answer.header("X-Cache") == "miss" && answer.body == bytes(column % 4, column / 4))
            }
        }
    }

    @Test func anAnswerCutShortIsA503NeverAShortTile() async throws {
        let faults: [FaultProxy.Fault] = [.cut(keeping: 10, reset: true), .cut(keeping: 10, reset: false), .reset]
        try await withStore { server, proxy in
            // Kept-alive connections to the store are made first, so the faults meet reused ones as well as new ones.
            #expect(try await get(server, tile("alpha", 3, 2)).status == 200)
            for (column, fault) in faults.enumerated() {
                try await proxy.set(fault)
                let before = proxy.requests.count
                let answer = try await get(server, tile("alpha", column, 0))
                #expect(answer.status == 503 && answer.header("Retry-After") == "1", "\(fault): \(answer.status) \(answer.text)")
                #expect(proxy.requests.count - before == 3, "\(fault): \(proxy.requests.count - before) requests")
            }
            try await proxy.set(.none)
            for column in faults.indices {
                let answer = try await get(server, tile("alpha", column, 0))
                #expect(answer.status == 200 && answer.header("X-Cache") == "miss" && answer.body == bytes(column, 0))
            }
        }
    }

    @Test func failuresAreLoggedOncePerImage() async throws {
        let recorder = LogRecorder()
        try await withStore(logger: recorder.logger) { server, proxy in
            try await proxy.set(.answer(status: 403, code: "AccessDenied"))
            for column in 0..<4 {
                #expect(try await get(server, tile("alpha", column, 0)).status == 502)
                #expect(try await get(server, tile("alpha", column, 0)).status == 502)
            }
            var lines = recorder.lines.filter { $0.hasPrefix("Reading from a store failed") }
            #expect(lines.count == 1 && lines.allSatisfy { $0.contains("imgs/alpha.szi") }, "\(lines)")
            // Another image's failures are its own line, however many the first one's were.
            for column in 0..<3 {
                #expect(try await get(server, tile("maps/beta", column, 1)).status == 502)
            }
            lines = recorder.lines.filter { $0.hasPrefix("Reading from a store failed") }
            #expect(lines.count == 2 && lines.last?.contains("imgs/maps/beta.szi") == true, "\(lines)")
            #expect(!recorder.lines.joined().contains(try TestGateway.shared().secretKey))
        }
    }

    @Test func aListingThatFailsKeepsServingWhatWasListed() async throws {
        let recorder = LogRecorder()
        try await withStore(logger: recorder.logger) { server, proxy in
            #expect(try await get(server, tile("alpha", 0, 0)).status == 200)
            try await proxy.set(.down)
            let changes = await server.rescan()
            #expect(changes.added == 0 && changes.removed == 0)
            let list = try await get(server, "/api/images").text
            #expect(list.contains("\"name\":\"alpha\"") && list.contains("\"name\":\"maps/beta\"") && list.contains("\"name\":\"gamma\""))
            let hit = try await get(server, tile("alpha", 0, 0))
            #expect(hit.status == 200 && hit.header("X-Cache") == "hit" && hit.body == bytes(0, 0))
            #expect(try await get(server, tile("alpha", 1, 1)).status == 503)
            // A second failed listing within the minute says nothing more.
            _ = await server.rescan()
            let listing = recorder.lines.filter { $0.hasPrefix("Listing s3://") }
            #expect(listing.count == 1 && listing[0].contains("still serving what it held"), "\(recorder.lines)")
            try await proxy.set(.none)
            #expect(await recovers(server, "alpha", 1, 1))
            #expect(try await get(server, tile("maps/beta", 2, 2)).body == bytes(2, 2))
            let again = await server.rescan()
            #expect(again.added == 0 && again.removed == 0 && server.statistics.images == 3)
        }
    }
}
