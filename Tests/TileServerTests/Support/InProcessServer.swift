import Foundation
import NIOCore
import NIOEmbedded
import Synchronization

@testable import TileServer

/// A server's services and the pipeline every connection gets, with no socket: each ``connect()`` is a fresh
/// connection on NIO's async testing channel, so a test of routes, headers, conditional and range requests or the
/// image list runs in milliseconds and the same way as over TCP. What only a socket shows (timeouts, `sendfile`, cork,
/// shutdown, descriptor limits) stays with ``withServer(_:_:_:)``; a body that holds both ways runs both ways with a
/// ``Transport`` (``withServer(_:_:_:_:)``). The catalog is scanned once, at the start (``rescan()`` for more).
final class InProcessServer: Sendable {
    let runtime: ServerRuntime

    /// Scans `configuration`'s ROOT once (tiles are never sent from open files here: there is no socket to `sendfile` to).
    init(_ configuration: ServerConfiguration) throws {
        var configuration = configuration
        configuration.openTileFilesPerLoop = 0
        runtime = try ServerRuntime(configuration)
        runtime.context.catalog.rescan()
    }

    /// What every connection shares.
    var context: Services { runtime.context }

    /// The server's counters, as `/metrics` shows them.
    var statistics: ServerStatistics { runtime.context.statistics }

    /// Rescans ROOT (as the server's timer does), withdrawing what was removed.
    func rescan() {
        _ = runtime.rescan()
    }

    /// A new connection.
    func connect() async throws -> InProcessConnection {
        try await InProcessConnection(EmbeddedConnection(runtime: runtime))
    }
}

/// One in-process connection with the raw client's calls (``RawHTTPConnection``), asynchronous.
final class InProcessConnection: Sendable {
    let connection: EmbeddedConnection
    private let pending = Mutex<[UInt8]>([])

    init(_ connection: EmbeddedConnection) {
        self.connection = connection
    }

    /// Sends `text`'s UTF-8 bytes as they are.
    func send(_ text: String) async throws {
        try await connection.channel.writeInbound(ByteBuffer(string: text))
    }

    /// Sends a `GET` (or `method`) for `target` with `Host` and the given extra header lines.
    func request(_ target: String, method: String = "GET", headers: [String] = []) async throws {
        try await send("\(method) \(target) HTTP/1.1\r\nHost: test\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n")
    }

    /// Reads one response; `head` says it answers a HEAD request. Gives up after 120 s of waiting — a guard against
    /// hangs, and long: this polls on the cooperative pool, which other tests' blocking socket calls can hold for many
    /// seconds, and the answer is drained once more before giving up.
    func readResponse(head: Bool = false) async throws -> RawResponse {
        let deadline = ContinuousClock.now + .seconds(120)
        var lastChance = false
        while true {
            if let response = try pending.withLock({ try RawResponse.parse(&$0, head: head) }) { return response }
            if let buffer = try await connection.channel.readOutbound(as: ByteBuffer.self) {
                pending.withLock { $0.append(contentsOf: buffer.readableBytesView) }
            } else if lastChance {
                throw RawClientError(description: "no complete response within 120 s")
            } else if !connection.channel.isActive {
                throw RawClientError(description: "connection closed before a complete response")
            } else {
                lastChance = ContinuousClock.now > deadline
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Whether the server has closed the connection (waiting up to 5 s for it).
    func waitForClose() async -> Bool {
        await connection.waitForClose()
    }

    /// Ends the connection.
    func close() async {
        _ = try? await connection.channel.finish()
    }
}

/// Starts an in-process server on `fixture`'s ROOT with `configuration` (default: ``testConfiguration(root:)``), runs
/// `body` against it, and stops its threads.
func withInProcessServer(
    _ fixture: PyramidFixture, _ configuration: ServerConfiguration? = nil, _ body: (InProcessServer) async throws -> Void
) async throws {
    let server = try InProcessServer(configuration ?? testConfiguration(root: fixture.root))
    defer { withExtendedLifetime(fixture) {} }
    do {
        try await body(server)
    } catch {
        await server.runtime.shutdown()
        throw error
    }
    await server.runtime.shutdown()
}

/// One `GET` (or `method`) on a fresh in-process connection.
func fetch(_ server: InProcessServer, _ target: String, method: String = "GET", headers: [String] = []) async throws -> RawResponse {
    let connection = try await server.connect()
    try await connection.request(target, method: method, headers: headers)
    let response = try await connection.readResponse(head: method == "HEAD")
    await connection.close()
    return response
}
