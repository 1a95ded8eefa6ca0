import TileServer

/// One connection to a server under test, whichever way it reaches it — in process (``InProcessConnection``) or over
/// TCP (``RawHTTPConnection``) — so that one test body runs both ways (``Transport``). Its requirements have no
/// defaults (a protocol extension giving them would take over the concrete clients' own calls): give every argument.
protocol TestClient: AnyObject {
    /// Sends `text`'s UTF-8 bytes as they are.
    func send(_ text: String) async throws
    /// Sends a `method` request for `target` with `Host` and the given extra header lines.
    func request(_ target: String, method: String, headers: [String]) async throws
    /// Reads one response; `head` says it answers a HEAD request (no body whatever `Content-Length` says).
    func readResponse(head: Bool) async throws -> RawResponse
    /// Whether the server closes the connection (waiting a while for it).
    func waitForClose() async -> Bool
    /// Ends the connection from the client's side.
    func close() async
}

/// A server under test, whichever way its connections reach it.
protocol TestTarget: AnyObject {
    associatedtype Client: TestClient
    /// A new connection.
    func connect() async throws -> Client
    /// The server's counters, as `/metrics` shows them.
    var statistics: ServerStatistics { get }
}

/// How a test reaches its server: in process, on NIO's testing channel (no socket, milliseconds), or over TCP on
/// 127.0.0.1 (the kernel's part too: `sendfile`, cork). `@Test(arguments: Transport.allCases)` runs a body both ways.
enum Transport: CaseIterable, Sendable, CustomStringConvertible {
    case inProcess
    case socket

    var description: String {
        switch self {
        case .inProcess: "in process"
        case .socket: "over a socket"
        }
    }
}

extension InProcessConnection: TestClient {}

extension InProcessServer: TestTarget {}

extension RawHTTPConnection: TestClient {}

extension Server: TestTarget {
    /// A new TCP connection to the server's port.
    func connect() throws -> RawHTTPConnection {
        try RawHTTPConnection(port: port)
    }
}

/// Starts a server on `fixture`'s ROOT with `configuration` (default: ``testConfiguration(root:)``), reached over
/// `transport`, runs `body` against it, and stops it.
func withServer(
    _ transport: Transport, _ fixture: PyramidFixture, _ configuration: ServerConfiguration? = nil, _ body: (any TestTarget) async throws -> Void
) async throws {
    switch transport {
    case .inProcess: try await withInProcessServer(fixture, configuration) { try await body($0) }
    case .socket: try await withServer(fixture, configuration) { try await body($0) }
    }
}

/// One `GET` (or `method`) on a fresh connection to `server`, whichever way it is reached. (Labelled: in an
/// asynchronous test an unlabelled `fetch` would take over the socket tests' synchronous one.)
func fetch(from server: any TestTarget, _ target: String, method: String = "GET", headers: [String] = []) async throws -> RawResponse {
    let connection = try await server.connect()
    try await connection.request(target, method: method, headers: headers)
    let response = try await connection.readResponse(head: method == "HEAD")
    await connection.close()
    return response
}
