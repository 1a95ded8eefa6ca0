import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// Kept-alive HTTP/1.1 connections to a store, per event loop, for the requests that read it (`GET`, `HEAD`): a tile
/// beyond the cache is one of them, so their cost is a tile's.
///
/// AsyncHTTPClient, which sends everything else, spends about 300,000 instructions on each such request (its request
/// bag, a tracing span, a growing body buffer, small reads); this pool spends a fraction of that, and reads a body
/// into one buffer sized by its `Content-Length`. `bench/request-cost.sh`'s bucket case counts the difference.
///
/// Connections to `https://` stores speak TLS (swift-nio-ssl), checked against the system's certificate authorities
/// or a file of them (``ObjectStoreOptions/caBundle``).
///
/// A request runs on a connection of its own event loop; connections are made as needed (``HTTPTransport``'s limiter
/// bounds how many are busy) and closed after `idleTimeout` unused. A kept-alive connection the store closed before
/// answering is replaced once, at no cost to the request's retries.
package final class StoreConnectionPool: Sendable {
    private struct Key: Hashable {
        var origin: StoreOrigin
        var loop: ObjectIdentifier
    }

    private struct Idle: Sendable {
        var channel: any Channel
        var handler: NIOLoopBound<StoreConnectionHandler>
        var closer: Scheduled<Void>?
    }

    private let idle = Mutex<(connections: [Key: [Idle]], shutDown: Bool)>(([:], false))
    /// The origin of the last request: a store's requests share one, which is then not parsed again.
    private let lastOrigin = Mutex<StoreOrigin?>(nil)
    private let connectTimeout: TimeAmount
    private let readTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private let maxIdlePerLoop: Int
    /// The TLS context of `https://` connections, or why there is none (a certificate authorities' file that cannot
    /// be read): then `https://` requests fail with that error.
    private let tls: Result<NIOSSLContext, any Error>

    package init(
        connectTimeout: TimeAmount, readTimeout: TimeAmount, idleTimeout: TimeAmount, maxIdlePerLoop: Int, tls: Result<NIOSSLContext, any Error>
    ) {
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.idleTimeout = idleTimeout
        self.maxIdlePerLoop = maxIdlePerLoop
        self.tls = tls
    }

    /// Whether the pool sends requests to `url` (`http://` and `https://`).
    package func handles(_ url: String) -> Bool {
        url.hasPrefix("http://") || url.hasPrefix("https://")
    }

    /// Sends a body-less request to `url` on `eventLoop` and gives the whole answer; fails with AsyncHTTPClient's
    /// errors (``StoreConnectionHandler``) or NIO's connection errors.
    package func execute(
        method: HTTPMethod, url: String, headers: HTTPHeaders, on eventLoop: any EventLoop, deadline: NIODeadline
    ) -> EventLoopFuture<HTTPClient.Response> {
        let origin: StoreOrigin
        let target: String
        if let known = lastOrigin.withLock({ $0 }), let knownTarget = known.target(in: url) {
            (origin, target) = (known, knownTarget)
        } else if let parts = StoreOrigin.split(url) {
            (origin, target) = parts
            lastOrigin.withLock { $0 = origin }
        } else {
            return eventLoop.makeFailedFuture(HTTPClientError.invalidURL)
        }
        var headers = headers
        if !headers.contains(name: "host") { headers.add(name: "host", value: origin.hostHeader) }
        let head = HTTPRequestHead(version: .http1_1, method: method, uri: target, headers: headers)
        let key = Key(origin: origin, loop: ObjectIdentifier(eventLoop))
        if let kept = take(key) {
            return send(head, on: kept, key: key, deadline: deadline).flatMapError { error in
                guard kept.handler.value.closedUnanswered, NIODeadline.now() < deadline else { return eventLoop.makeFailedFuture(error) }
                return self.connect(key, on: eventLoop).flatMap { self.send(head, on: $0, key: key, deadline: deadline) }
            }
        }
        return connect(key, on: eventLoop).flatMap { self.send(head, on: $0, key: key, deadline: deadline) }
    }

    /// Closes the idle connections; connections in use close when their request ends.
    package func shutdown() {
        let all = idle.withLock { state in
            state.shutDown = true
            defer { state.connections = [:] }
            return state.connections.values.flatMap { $0 }
        }
        for connection in all {
            connection.closer?.cancel()
            connection.channel.close(promise: nil)
        }
    }

    private func send(_ head: HTTPRequestHead, on connection: Idle, key: Key, deadline: NIODeadline) -> EventLoopFuture<HTTPClient.Response> {
        let promise = connection.channel.eventLoop.makePromise(of: HTTPClient.Response.self)
        connection.handler.value.send(head, host: key.origin.host, deadline: deadline, readTimeout: readTimeout, promise: promise)
        return promise.futureResult.map { response in
            self.giveBack(connection, key: key)
            return response
        }
    }

    private func take(_ key: Key) -> Idle? {
        let taken = idle.withLock { state in state.connections[key]?.popLast() }
        taken?.closer?.cancel()
        return taken
    }

    /// Keeps a connection whose exchange ended for the next request of its loop, or closes it.
    private func giveBack(_ connection: Idle, key: Key) {
        let handler = connection.handler.value
        guard handler.reusable, connection.channel.isActive else { return }
        var kept = connection
        kept.closer = connection.channel.eventLoop.scheduleTask(in: idleTimeout) { [weak self] in
            self?.forget(connection.channel, key: key)
            connection.channel.close(promise: nil)
        }
        let stored = idle.withLock { state in
            guard !state.shutDown, state.connections[key, default: []].count < maxIdlePerLoop else { return false }
            state.connections[key, default: []].append(kept)
            return true
        }
        if !stored {
            kept.closer?.cancel()
            connection.channel.close(promise: nil)
        }
    }

    private func forget(_ channel: any Channel, key: Key) {
        idle.withLock { state in state.connections[key]?.removeAll { $0.channel === channel } }
    }

    private func connect(_ key: Key, on eventLoop: any EventLoop) -> EventLoopFuture<Idle> {
        let secure: NIOSSLContext?
        switch (key.origin.scheme, tls) {
        case ("https", .success(let context)): secure = context
        case ("https", .failure(let error)): return eventLoop.makeFailedFuture(error)
        default: secure = nil
        }
        // SNI names hosts, never addresses.
        let serverName =
            key.origin.host.utf8.contains(UInt8(ascii: ":")) || key.origin.host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : key.origin.host
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            // Tiles are tens of kilobytes: read them in a few large reads, not many small ones.
            .channelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 4096, initial: 65_536, maximum: 1 << 20))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let sync = channel.pipeline.syncOperations
                    if let secure { try sync.addHandler(NIOSSLClientHandler(context: secure, serverHostname: serverName)) }
                    try sync.addHTTPClientHandlers(leftOverBytesStrategy: .fireError)
                    let handler = StoreConnectionHandler()
                    handler.onClose = { [weak self] in self?.forget(channel, key: key) }
                    try sync.addHandler(handler)
                }
            }
            .connect(host: key.origin.host, port: key.origin.port)
            .flatMapErrorThrowing { error in
                if case ChannelError.connectTimeout = error { throw HTTPClientError.connectTimeout }
                throw error
            }
            .flatMapThrowing { channel in
                let handler = try channel.pipeline.syncOperations.handler(type: StoreConnectionHandler.self)
                return Idle(channel: channel, handler: NIOLoopBound(handler, eventLoop: channel.eventLoop), closer: nil)
            }
    }
}
