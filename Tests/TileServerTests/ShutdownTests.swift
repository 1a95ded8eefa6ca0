import Foundation
import Testing
import TileServer

/// Graceful shutdown: stop accepting, finish what is in flight, close idle connections, stop.
@Suite struct ShutdownTests {
    @Test func shutdownFinishesRequestsInFlight() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 2000, height: 2000, tileBytes: 2000)
        let bigSize = 8 << 20
        try fixture.write(String(repeating: "z", count: bigSize), to: "Public/big.txt")
        var configuration = testConfiguration(root: fixture.root)
        configuration.publicDirectory = fixture.base + "/Public"
        configuration.fileThreads = 1
        // Long enough that only finishing the requests, never the grace period running out, closes connections; and
        // the send timeout must not drop the client that reads its large response last, however loaded the machine.
        configuration.shutdownGracePeriod = .seconds(120)
        configuration.idleTimeout = .seconds(120)
        configuration.sendTimeout = .seconds(120)
        let server = try await Server.start(configuration)
        let port = server.port

        let idle = try RawHTTPConnection(port: port)
        try idle.request("/healthz")
        #expect(try idle.readResponse().status == 200)
        // A large response the client does not read yet, then tile reads queued behind it on the one file
        // thread, and pipelined requests behind those on another connection.
        let slow = try RawHTTPConnection(port: port)
        try slow.request("/big.txt")
        let waiting = try RawHTTPConnection(port: port)
        try waiting.request("/images/alpha_files/11/3_3.jpg")
        let pipelined = try RawHTTPConnection(port: port)
        try pipelined.send((0..<4).map { "GET /images/alpha_files/11/\($0)_5.jpg HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
        try await Task.sleep(for: .milliseconds(50))

        let shutdown = Task { await server.shutdown() }
        // The clients wait on a thread of their own: blocking the cooperative pool here could keep the shutdown task
        // from ever running on a loaded two-core machine.
        #expect(try await blocking { idle.waitForClose() })
        let tile = try await blocking { try waiting.readResponse() }
        #expect(tile.status == 200)
        #expect(tile.body == PyramidFixture.tileBytes(level: 11, column: 3, row: 3, count: 2000))
        #expect(try await blocking { waiting.waitForClose() })
        for column in 0..<4 {
            let response = try await blocking { try pipelined.readResponse() }
            #expect(response.body == PyramidFixture.tileBytes(level: 11, column: column, row: 5, count: 2000))
        }
        #expect(try await blocking { pipelined.waitForClose() })
        let big = try await blocking { try slow.readResponse() }
        #expect(big.status == 200 && big.body.count == bigSize)
        #expect(try await blocking { slow.waitForClose() })
        await shutdown.value
        // Its socket is closed (the port itself may already be another test's server's: the suites run at once).
        #expect(!server.isListening)
    }

    @Test func shutdownIsIdempotentAndQuickWhenIdle() async throws {
        let fixture = try PyramidFixture()
        let server = try await Server.start(testConfiguration(root: fixture.root))
        let connection = try RawHTTPConnection(port: server.port)
        try connection.request("/healthz")
        #expect(try connection.readResponse().status == 200)
        async let first: Void = server.shutdown()
        async let second: Void = server.shutdown()
        _ = await (first, second)
        await server.shutdown()
        #expect(connection.waitForClose())
    }

    @Test func startFailsCleanlyOnBadConfiguration() async throws {
        let fixture = try PyramidFixture()
        var missingRoot = testConfiguration(root: fixture.base + "/nowhere")
        missingRoot.port = 0
        await #expect(throws: ServerError.self) { try await Server.start(missingRoot) }
        var badPort = testConfiguration(root: fixture.root)
        badPort.port = 70000
        await #expect(throws: ServerError.self) { try await Server.start(badPort) }
        var badPublic = testConfiguration(root: fixture.root)
        badPublic.publicDirectory = fixture.base + "/nothing"
        await #expect(throws: ServerError.self) { try await Server.start(badPublic) }
        // A port already taken.
        let first = try await Server.start(testConfiguration(root: fixture.root))
        var taken = testConfiguration(root: fixture.root)
        taken.port = first.port
        await #expect(throws: ServerError.self) { try await Server.start(taken) }
        await first.shutdown()
    }
}
