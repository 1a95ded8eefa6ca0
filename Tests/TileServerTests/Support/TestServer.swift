import Dispatch
import TileServer

/// A configuration for tests: port 0, short timeouts, fast rescans, quiet logs.
func testConfiguration(root: String) -> ServerConfiguration {
    var configuration = ServerConfiguration(root: root)
    configuration.port = 0
    configuration.eventLoopThreads = 2
    configuration.fileThreads = 2
    // Generous: a test stalled by a loaded machine must not see its connection time out (tests of the timeouts set
    // their own).
    configuration.headTimeout = .seconds(10)
    configuration.idleTimeout = .seconds(30)
    configuration.rescanInterval = .milliseconds(100)
    configuration.shutdownGracePeriod = .seconds(5)
    configuration.publicDirectory = nil
    // Dozens of test servers share this process's descriptors (its hard limit may be 20,000): each keeps few files and
    // folders open, or the file-sending and cache tests, which count the reads of each kind, would see opens fail.
    configuration.openTileFilesPerLoop = 256
    configuration.levelDirectoryLimit = 64
    configuration.logger.logLevel = .error
    return configuration
}

/// Starts a server on `fixture`'s ROOT with `configuration` (default: ``testConfiguration(root:)``), runs `body`
/// against it, and shuts it down. The fixture is kept alive until then.
func withServer(_ fixture: PyramidFixture, _ configuration: ServerConfiguration? = nil, _ body: (Server) async throws -> Void) async throws {
    let server = try await Server.start(configuration ?? testConfiguration(root: fixture.root))
    defer { withExtendedLifetime(fixture) {} }
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

/// One `GET` (or `method`) on a fresh connection.
func fetch(_ server: Server, _ target: String, method: String = "GET", headers: [String] = []) throws -> RawResponse {
    let connection = try RawHTTPConnection(port: server.port)
    try connection.request(target, method: method, headers: headers)
    return try connection.readResponse(head: method == "HEAD")
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass; returns whether it held.
func eventually(within seconds: Double = 10, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try condition()
}

/// Runs blocking client work (long socket waits, sleeps) on a Dispatch thread, so it neither starves the
/// cooperative pool other tests run on nor gets starved by it.
func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
