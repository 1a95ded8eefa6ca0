import Foundation
import NIOCore
import NIOEmbedded

@testable import HTTPCore
@testable import TileServer
@testable import TileSources

/// A server's services and one connection's handlers — the pipeline every real connection gets — on NIO's async
/// testing channel: request bytes in, response bytes out, no socket. Thread-safe, so answers that come later from the
/// file threads (``Response/later``) arrive as on a real connection.
final class EmbeddedConnection: Sendable {
    let runtime: ServerRuntime
    let channel = NIOAsyncTestingChannel()

    /// Scans `configuration`'s ROOT once and adds the handlers (tiles are never sent from open files here: the
    /// testing channel has no socket to `sendfile` to).
    convenience init(_ configuration: ServerConfiguration) async throws {
        var configuration = configuration
        configuration.openTileFilesPerLoop = 0
        let runtime = try ServerRuntime(configuration)
        runtime.context.catalog.rescan()
        try await self.init(runtime: runtime)
    }

    /// A new connection to `runtime`'s services (its catalog as it is).
    init(runtime: ServerRuntime) async throws {
        self.runtime = runtime
        let channel = self.channel
        let resources = LoopResources(eventLoop: channel.eventLoop, catalog: runtime.context.catalog, metricsShard: 0, openTileFiles: 0)
        try await channel.eventLoop.submit { try runtime.addHandlers(to: channel, resources: resources) }.get()
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080))
    }

    /// A router of this server's services, whose later answers go to `deliver`.
    func router(deliver: @escaping ResponseDelivery = { _ in }) -> Router {
        Router(
            services: runtime.context, catalog: CatalogView(catalog: runtime.context.catalog),
            tiles: TileLookup(store: runtime.context.tiles, openFiles: OpenTileFiles(capacity: 0), usesCachestat: true), deliver: deliver)
    }

    /// Feeds `bytes` to the connection and returns what it wrote in answer, once it has written `responses`
    /// responses (status lines) or 10 s have passed.
    func send(_ bytes: String, responses: Int = 1) async throws -> String {
        try await channel.writeInbound(ByteBuffer(string: bytes))
        var out = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while out.components(separatedBy: "HTTP/1.1 ").count - 1 < responses && ContinuousClock.now < deadline {
            if let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
                out += String(buffer: buffer)
            } else {
                try await Task.sleep(for: .milliseconds(2))
            }
        }
        while let buffer = try await channel.readOutbound(as: ByteBuffer.self) {
            out += String(buffer: buffer)
        }
        return out
    }

    /// Whether the connection has been closed.
    var isClosed: Bool { !channel.isActive }

    /// Waits up to 5 s for the connection to close; returns whether it did.
    func waitForClose() async -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while channel.isActive && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(2))
        }
        return !channel.isActive
    }

    /// Runs `body` with a connection to a server of `configuration`, stopped afterwards whatever happens.
    static func with(_ configuration: ServerConfiguration, _ body: (EmbeddedConnection) async throws -> Void) async throws {
        let connection = try await EmbeddedConnection(configuration)
        do {
            try await body(connection)
        } catch {
            await connection.stop()
            throw error
        }
        await connection.stop()
    }

    /// Closes the channel and stops the services' threads.
    func stop() async {
        _ = try? await channel.finish()
        await runtime.shutdown()
    }
}
