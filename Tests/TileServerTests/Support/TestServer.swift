import TileServer

/// A configuration for tests: port 0, short timeouts, fast rescans, quiet logs.
func testConfiguration(root: String) -> ServerConfiguration {
    var configuration = ServerConfiguration(root: root)
    configuration.port = 0
    configuration.eventLoopThreads = 2
    configuration.fileThreads = 2
    configuration.headTimeout = .seconds(2)
    configuration.idleTimeout = .seconds(4)
    configuration.rescanInterval = .milliseconds(100)
    configuration.shutdownGracePeriod = .seconds(5)
    configuration.publicDirectory = nil
    configuration.logger.logLevel = .error
    return configuration
}

/// Starts a server on `fixture`'s ROOT (adjusted by `configure`), runs `body` against it, and shuts it down.
func withServer(
    _ fixture: PyramidFixture, configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (Server) async throws -> Void
) async throws {
    var configuration = testConfiguration(root: fixture.root)
    configure(&configuration)
    let server = try await Server.start(configuration)
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
