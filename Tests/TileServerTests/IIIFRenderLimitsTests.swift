import Foundation
import Testing

@testable import TileServer

/// What IIIF renders may hold, over real sockets: bodies waiting for clients that do not read count against the
/// render budget (503 with `Retry-After` beyond it, tiles unaffected) until those clients close or are timed out;
/// renders whose clients hang up are cancelled, queued or running; `HEAD` of a render renders nothing.
@Suite struct IIIFRenderLimitsTests {
    /// A render whose PNG body (1600 × 1600 random pixels, over 7.6 MB) is more than the kernel buffers on both
    /// sides of a loopback connection whose client does not read: most of it waits in the server.
    static let bigRender = "/iiif/3/noise/full/max/0/default.png"
    /// A cheap render (not a stored tile).
    static let smallRender = "/iiif/3/noise/full/37,/0/default.jpg"
    /// A stored tile of the same image.
    static let tile = "/images/noise_files/11/0_0.png"
    /// Bytes a client that does not read lets the kernel take for it.
    static let tinyWindow: Int32 = 4096

    static func fixture() throws -> PyramidFixture {
        let fixture = try PyramidFixture()
        try fixture.addImagePyramid("noise", image: TestPicture.noise(width: 1600, height: 1600), tileSize: 256, format: "png")
        return fixture
    }

    /// A configuration with a 1 MiB render budget (one big render at a time) and idle and send timeouts long enough
    /// that only the clients close their connections.
    static func configuration(_ fixture: PyramidFixture) -> ServerConfiguration {
        var configuration = testConfiguration(root: fixture.root)
        configuration.iiif.renderBudgetBytes = 1 << 20
        configuration.iiif.renderThreads = 2
        configuration.idleTimeout = .seconds(120)
        configuration.sendTimeout = .seconds(120)
        return configuration
    }

    /// Asks for `target` (with `headers`) on a connection that never reads.
    static func stalledClient(_ server: Server, _ target: String, headers: [String] = []) throws -> RawHTTPConnection {
        let connection = try RawHTTPConnection(port: server.port, receiveBuffer: tinyWindow)
        try connection.request(target, headers: headers)
        return connection
    }

    @Test func bodiesWaitingForClientsThatDoNotReadHoldTheBudgetUntilTheyClose() async throws {
        let fixture = try Self.fixture()
        try await withServer(fixture, Self.configuration(fixture)) { server in
            var stalled = [try Self.stalledClient(server, Self.bigRender)]
            // Rendered and encoded, the body waits for its client: the budget still holds it.
            #expect(await eventually(within: 60) { server.statistics.iiifRenders == 1 && server.context.renders.load == 0 })
            let held = server.statistics.iiifRenderBytes
            #expect(held > 1 << 20, "the unsent body counts (\(held) bytes)")
            for _ in 0..<3 {
                let refused = try fetch(server, Self.bigRender)
                #expect(refused.status == 503)
                #expect(refused.header("Retry-After") == "1")
                #expect(refused.header("Content-Type") == "application/json" && refused.text.contains("\"status\":503"))
                stalled.append(try Self.stalledClient(server, Self.smallRender))
            }
            // Tiles do not need the budget.
            let tile = try fetch(server, Self.tile)
            let stored = try fixture.tileBytes("noise", level: 11, column: 0, row: 0, format: "png")
            #expect(tile.status == 200 && tile.body == stored)
            #expect(server.statistics.iiifRenders == 1)
            // The stalled clients' requests are answered (503) whenever their event loop gets to them.
            #expect(await eventually { server.statistics.iiifRendersRefused >= 6 })
            let metrics = try fetch(server, "/metrics").text
            #expect(metrics.contains("tiler_iiif_render_bytes \(server.statistics.iiifRenderBytes)\n"))
            #expect(metrics.contains("tiler_iiif_render_budget_bytes \(1 << 20)\n"))
            stalled.removeAll()
            // Closed: every byte is given back, and renders are accepted again.
            #expect(await eventually(within: 30) { server.statistics.iiifRenderBytes == 0 })
            let accepted = try fetch(server, Self.smallRender)
            #expect(accepted.status == 200 && accepted.header("Content-Type") == "image/jpeg")
            // Given back once the server's event loop hears the write is done, which may be just after the client read it.
            #expect(await eventually { server.statistics.iiifRenderBytes == 0 })
        }
    }

    /// Kept alive or to be closed after the response, a connection whose client stops reading is dropped.
    @Test(arguments: [[], ["Connection: close"]])
    func aClientThatStopsReadingARenderIsDroppedAndItsBudgetFreed(headers: [String]) async throws {
        let fixture = try Self.fixture()
        var configuration = Self.configuration(fixture)
        configuration.sendTimeout = .seconds(1)
        try await withServer(fixture, configuration) { server in
            let stalled = try Self.stalledClient(server, Self.bigRender, headers: headers)
            #expect(await eventually(within: 60) { server.statistics.iiifRenders == 1 && server.context.renders.load == 0 })
            // The send timeout closes the connection (the body cut short) and the budget is freed, the client still open.
            #expect(await eventually(within: 30) { server.statistics.iiifRenderBytes == 0 })
            let cutShort = try await blocking { (try? stalled.readResponse()) == nil }
            #expect(cutShort)
            #expect(try fetch(server, Self.smallRender).status == 200)
        }
    }

    @Test func aQueuedRenderWhoseClientHangsUpIsDroppedWithoutRunning() async throws {
        let fixture = try Self.fixture()
        var configuration = Self.configuration(fixture)
        configuration.iiif.renderThreads = 1
        try await withServer(fixture, configuration) { server in
            let renders = server.context.renders
            // The only render thread is busy until the gate opens, so the client's render waits in the queue.
            let gate = RenderPoolTests.Gate()
            #expect(renders.submit({ _, _ in gate.wait() }, completion: { _ in }) != nil)
            do {
                let client = try RawHTTPConnection(port: server.port)
                try client.request(Self.smallRender)
                #expect(await eventually { renders.load == 2 })
                withExtendedLifetime(client) {}
            }
            // Hung up: dropped from the queue at once, its place and its budget freed.
            #expect(await eventually { renders.cancelled == 1 && renders.load == 1 })
            #expect(server.statistics.iiifRenderBytes == 0)
            gate.open()
            #expect(await eventually { renders.load == 0 })
            #expect(server.statistics.iiifRendersCancelled == 1)
            #expect(server.statistics.iiifRenders == 1, "only the gate ran")
        }
    }

    @Test func aRunningRenderWhoseClientHangsUpStops() async throws {
        let fixture = try Self.fixture()
        try await withServer(fixture, Self.configuration(fixture)) { server in
            do {
                // 6000 × 6000 enlarged from the pyramid: many seconds of work, stopped at the next row.
                let client = try RawHTTPConnection(port: server.port)
                try client.request("/iiif/3/noise/full/^6000,/0/default.png")
                #expect(await eventually { server.statistics.iiifRenders == 1 })
                withExtendedLifetime(client) {}
            }
            #expect(await eventually(within: 30) { server.statistics.iiifRendersCancelled == 1 })
            #expect(await eventually { server.context.renders.load == 0 && server.statistics.iiifRenderBytes == 0 })
            #expect(try fetch(server, Self.smallRender).status == 200)
        }
    }

    @Test func headOfARenderAnswersTheHeadersWithoutRendering() async throws {
        let fixture = try Self.fixture()
        try await withServer(fixture, Self.configuration(fixture)) { server in
            let head = try fetch(server, Self.bigRender, method: "HEAD")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Type") == "image/png")
            #expect(head.header("Content-Length") == nil)
            #expect(head.header("Link")?.contains("rel=\"canonical\"") == true)
            let etag = try #require(head.header("ETag"))
            #expect(server.statistics.iiifRenders == 0 && server.statistics.iiifRenderBytes == 0)
            let notModified = try fetch(server, Self.bigRender, method: "HEAD", headers: ["If-None-Match: \(etag)"])
            #expect(notModified.status == 304)
            let get = try fetch(server, Self.smallRender)
            #expect(get.status == 200 && server.statistics.iiifRenders == 1)
            let smallHead = try fetch(server, Self.smallRender, method: "HEAD")
            #expect(smallHead.header("ETag") == get.header("ETag") && smallHead.header("Content-Type") == get.header("Content-Type"))
            #expect(server.statistics.iiifRenders == 1)
        }
    }
}
