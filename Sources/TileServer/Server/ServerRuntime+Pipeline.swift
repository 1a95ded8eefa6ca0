import HTTPCore
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOTLS
import TileSources

extension ServerRuntime {
    /// Adds one connection's handlers to `channel` (on its event loop, whose `resources` they use). Plain HTTP:
    /// ``SimpleRequestDecoder`` (which also announces every read to the connection's state) → NIO's HTTP/1.1 decoder
    /// (size limits) → ``ConnectionHandler``. With TLS: ``SocketCloser`` (where HTTP/2's defences close from, below
    /// TLS), ``TLSSniffer`` (which puts the TLS handler in its place, or
    /// refuses plain HTTP) → ALPN, then HTTP/2 when the client offers `h2` (each stream: ``HTTP2StreamCodec`` → a
    /// ``ConnectionHandler`` of its own), else the plain pipeline's handlers. With `--h2c`
    /// on a plain port: ``PriorKnowledgeSniffer``, then HTTP/2 for a client that opens with its preface, else the plain
    /// pipeline's handlers. The handshake, or the first bytes, must come within the head timeout. The bootstrap and the socket-free tests build connections with it.
    func addHandlers(to channel: any Channel, resources: LoopResources) throws {
        let pipeline = channel.pipeline.syncOperations
        let runtime = self
        guard let tls = context.tls else {
            guard configuration.cleartextHTTP2 else { return try addHTTP1Handlers(to: channel, resources: resources) }
            // The first bytes must come within the head timeout: no connection handler keeps time until they do.
            let first = channel.eventLoop.scheduleTask(in: TimeAmount(configuration.headTimeout)) { channel.close(promise: nil) }
            return try pipeline.addHandler(
                PriorKnowledgeSniffer { http2, channel in
                    first.cancel()
                    try runtime.addProtocolHandlers(http2: http2, to: channel, resources: resources)
                })
        }
        try pipeline.addHandler(SocketCloser())
        try pipeline.addHandler(TLSSniffer(credentials: tls))
        let handshake = channel.eventLoop.scheduleTask(in: TimeAmount(configuration.headTimeout)) { channel.close(promise: nil) }
        try pipeline.addHandler(
            ApplicationProtocolNegotiationHandler { result, channel in
                handshake.cancel()
                return channel.eventLoop.makeCompletedFuture {
                    try runtime.addProtocolHandlers(http2: result == .negotiated("h2"), to: channel, resources: resources)
                }
            })
    }

    /// The handlers of the protocol a client turned out to speak: HTTP/2's, or HTTP/1.1's.
    private func addProtocolHandlers(http2: Bool, to channel: any Channel, resources: LoopResources) throws {
        try http2 ? addHTTP2Handlers(to: channel, resources: resources) : addHTTP1Handlers(to: channel, resources: resources)
    }

    /// The HTTP/1.1 handlers: the fast decoder, NIO's decoder, the connection's handler.
    private func addHTTP1Handlers(to channel: any Channel, resources: LoopResources) throws {
        let decoder = HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: configuration.decoderLimits)
        let handler = connectionHandler(resources: resources)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(SimpleRequestDecoder(maxHeadBytes: configuration.maxHeadBytes, connection: handler, takes: Router.answersFromTarget))
        try pipeline.addHandler(ByteToMessageHandler(decoder))
        try pipeline.addHandler(handler)
    }

    /// HTTP/2: ``HTTP2SendGuard`` (no reading while the send buffer is full, and closed when it stays full for the
    /// send timeout), ``HTTP2PriorityReadTracker`` (the read bursts the connection's ``HTTP2PriorityScheduler`` orders
    /// requests within), NIO's connection handler (its limits: at most 100 streams at once, header lists of at most the head
    /// limit, and its defences against floods of resets, CONTINUATION, SETTINGS and PING frames), each stream answered
    /// by a connection handler of its own behind ``HTTP2StreamCodec``; then NIO's connection manager, which closes
    /// the connection gracefully (GOAWAY, then once its streams are done) after the idle timeout with no stream open
    /// and when the server shuts down; last ``HTTP2ConnectionCloser``, which closes it on an error the handler reports.
    private func addHTTP2Handlers(to channel: any Channel, resources: LoopResources) throws {
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .maxHeaderListSize, value: configuration.maxHeadBytes),
        ]
        let manager = NIOHTTP2ServerConnectionManagementHandler(
            eventLoop: channel.eventLoop,
            configuration: .init(
                maxIdleTime: TimeAmount(configuration.idleTimeout), maxAge: nil, maxGraceTime: TimeAmount(configuration.shutdownGracePeriod),
                keepalive: nil))
        let runtime = self
        let pipeline = channel.pipeline.syncOperations
        let scheduler = HTTP2PriorityScheduler()
        try pipeline.addHandler(HTTP2SendGuard(sendTimeout: TimeAmount(configuration.sendTimeout)))
        try pipeline.addHandler(HTTP2PriorityReadTracker(scheduler: scheduler))
        let schedulerOnLoop = NIOLoopBound(scheduler, eventLoop: channel.eventLoop)
        let sendTimeout = TimeAmount(configuration.sendTimeout)
        _ = try pipeline.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: connection, streamConfiguration: NIOHTTP2Handler.StreamConfiguration(),
            streamDelegate: manager.http2StreamDelegate
        ) { stream in
            stream.eventLoop.makeCompletedFuture {
                let pipeline = stream.pipeline.syncOperations
                try pipeline.addHandler(HTTP2StreamCodec(scheduler: schedulerOnLoop.value, sendTimeout: sendTimeout))
                try pipeline.addHandler(runtime.connectionHandler(resources: resources, isStream: true))
            }
        }
        try pipeline.addHandler(manager)
        try pipeline.addHandler(HTTP2ConnectionCloser())
    }

    /// A connection's (or an HTTP/2 stream's, `isStream`) handler, answering with a ``Router`` on `resources`' loop.
    private func connectionHandler(resources: LoopResources, isStream: Bool = false) -> ConnectionHandler {
        let limits = ConnectionLimits(
            headTimeout: TimeAmount(configuration.headTimeout), idleTimeout: TimeAmount(configuration.idleTimeout),
            sendTimeout: TimeAmount(configuration.sendTimeout))
        let services = context
        let openTiles = resources.openTiles.value
        let catalog = resources.catalog.value
        return ConnectionHandler(
            services: context.connectionServices, date: resources.date.value, metricsShard: resources.metricsShard, limits: limits,
            accessLog: resources.accessLog.value, isStream: isStream
        ) { deliver in
            let tiles = TileLookup(store: services.tiles, openFiles: openTiles, usesCachestat: services.configuration.usesCachestat)
            return Router(services: services, catalog: catalog, tiles: tiles, deliver: deliver)
        }
    }
}
