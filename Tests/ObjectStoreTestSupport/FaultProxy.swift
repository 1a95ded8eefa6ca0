import NIOCore
import NIOPosix
import Synchronization

/// A TCP proxy on 127.0.0.1 in front of a real store (the test gateway) whose behaviour a test switches at any time
/// (``set(_:)``): it passes bytes through, or plays a ``Fault`` at the next request of every connection — a port
/// closed, a reset, silence, an answer of its own, an answer cut short. It records the request lines it sees, so a
/// test can count the attempts of a client that retries.
///
/// A fault is decided per request: each piece of a request the client writes is matched against the fault of the
/// moment (a client's request head arrives in one piece), so a kept-alive connection that passed one request through
/// meets the fault at its next.
public final class FaultProxy: Sendable {
    /// What the proxy does with a request.
    public enum Fault: Sendable, Equatable {
        /// Passes it to the store and the answer back.
        case none
        /// The port is closed (connections refused) and every open connection reset.
        case down
        /// Resets the connection (TCP RST) when the request arrives.
        case reset
        /// Reads the request and never answers (the connection stays open).
        case silent
        /// Passes requests through until one whose request line contains `marker`; from that one on, ``silent``
        /// (a fault that lands between two requests of a client, however fast it sends them).
        case silentFrom(String)
        /// Answers `status` itself, with `headers` and an S3 error body naming `code`, and closes the connection.
        case answer(status: Int, code: String, headers: [String] = [])
        /// Passes the request to the store, then the answer's head and its first `keeping` body bytes (at most all but
        /// one), then ends the connection: with a reset, or with a plain close (a body shorter than its Content-Length).
        case cut(keeping: Int, reset: Bool)
    }

    /// What the connections share: the fault of the moment, the open connections, the requests seen.
    final class Board: Sendable {
        private struct State {
            var fault = Fault.none
            var connections: [ObjectIdentifier: any Channel] = [:]
            var requests: [String] = []
        }

        private let state = Mutex(State())
        /// Where requests are passed to.
        let upstreamHost: String
        let upstreamPort: Int

        init(upstreamHost: String, upstreamPort: Int) {
            self.upstreamHost = upstreamHost
            self.upstreamPort = upstreamPort
        }

        /// Sets the fault; gives the one before and the connections open.
        func swap(_ fault: Fault) -> (previous: Fault, open: [any Channel]) {
            state.withLock { state in
                defer { state.fault = fault }
                return (state.fault, Array(state.connections.values))
            }
        }

        /// The fault for a request whose first piece is `piece`, its request line recorded.
        func fault(for piece: ByteBuffer) -> Fault {
            let line = String(buffer: piece).prefix { !$0.isNewline }
            return state.withLock { state in
                if line.hasSuffix(" HTTP/1.1") { state.requests.append(String(line)) }
                if case .silentFrom(let marker) = state.fault, line.contains(marker) { state.fault = .silent }
                return state.fault
            }
        }

        public var requests: [String] { state.withLock { $0.requests } }

        func opened(_ channel: any Channel) {
            state.withLock { $0.connections[ObjectIdentifier(channel)] = channel }
        }

        func closed(_ channel: any Channel) {
            _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
        }
    }

    private let board: Board
    private let listener: Mutex<(any Channel)?>
    /// The port it listens on (the same after a ``Fault/down`` and back).
    public let port: Int

    /// Listens on a free port of 127.0.0.1, passing requests to `upstream` (`http://HOST:PORT`).
    public init(upstream: String) async throws {
        let address = upstream.dropFirst("http://".count).split(separator: ":")
        guard upstream.hasPrefix("http://"), address.count == 2, let upstreamPort = Int(address[1]) else {
            throw ProxyError(description: "not an http://HOST:PORT origin: \(upstream)")
        }
        board = Board(upstreamHost: String(address[0]), upstreamPort: upstreamPort)
        let channel = try await Self.listen(port: 0, board: board)
        port = channel.localAddress!.port!
        listener = Mutex(channel)
    }

    /// The origin to point clients at.
    public var origin: String { "http://127.0.0.1:\(port)" }

    /// The request lines seen so far (`GET /bucket/key HTTP/1.1`), whatever was done with them.
    public var requests: [String] { board.requests }

    /// The fault played from now on. Going ``Fault/down`` closes the port and resets the open connections; leaving it
    /// listens on the same port again.
    public func set(_ fault: Fault) async throws {
        let (previous, open) = board.swap(fault)
        if fault == .down && previous != .down {
            try await takeListener()?.close()
            for channel in open { Self.reset(channel) }
        } else if previous == .down && fault != .down {
            let channel = try await Self.listen(port: port, board: board)
            listener.withLock { $0 = channel }
        }
    }

    /// Stops listening and resets every connection.
    public func close() async {
        let (_, open) = board.swap(.down)
        try? await takeListener()?.close()
        for channel in open { Self.reset(channel) }
    }

    /// The listening channel, no longer held.
    private func takeListener() -> (any Channel)? {
        listener.withLock { channel in
            defer { channel = nil }
            return channel
        }
    }

    /// Closes `channel` with a TCP reset (SO_LINGER with a zero timeout: RST instead of FIN).
    static func reset(_ channel: any Channel) {
        let lingering = (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
        (lingering ?? channel.eventLoop.makeSucceededVoidFuture()).whenComplete { _ in channel.close(promise: nil) }
    }

    private static func listen(port: Int, board: Board) async throws -> any Channel {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FaultProxyConnection(board: board, front: channel))
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
    }
}

/// Why the proxy could not start.
struct ProxyError: Error, CustomStringConvertible {
    let description: String
}
