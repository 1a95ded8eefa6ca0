import NIOCore

/// What every connection's handler shares: the catalog, the tile store, the viewer's files, the metrics and the
/// pre-encoded response pieces. Immutable or internally synchronised.
final class ServerContext: Sendable {
    /// The configuration the server started with.
    let configuration: ServerConfiguration
    /// The pyramids being served.
    let catalog: ImageCatalog
    /// The tile cache and loader.
    let tiles: TileStore
    /// Background loading of the tiles visible-rect queries return.
    let warmer: TileWarmer
    /// The IIIF render threads.
    let renders: RenderPool
    /// The viewer's files, if a `Public/` folder was found.
    let staticFiles: StaticFiles?
    /// Request counters.
    let metrics: Metrics
    /// The open client connections.
    let connections: ConnectionRegistry
    /// The fixed pieces of responses.
    let blocks = ResponseBlocks()

    /// Assembles the shared state.
    init(
        configuration: ServerConfiguration, catalog: ImageCatalog, tiles: TileStore, warmer: TileWarmer, renders: RenderPool,
        staticFiles: StaticFiles?,
        metrics: Metrics, connections: ConnectionRegistry
    ) {
        self.configuration = configuration
        self.catalog = catalog
        self.tiles = tiles
        self.warmer = warmer
        self.renders = renders
        self.staticFiles = staticFiles
        self.metrics = metrics
        self.connections = connections
    }

    /// The numbers `/metrics` shows besides request counts.
    var gauges: ServerGauges {
        ServerGauges(cache: tiles.cache.statistics, diskReads: tiles.diskReads, images: catalog.count, connections: connections.count)
    }
}

/// Response pieces encoded once at startup. A class: handing it around retains one object, where a struct of a
/// dozen buffers would retain each of them on every copy (on every request, from both cores).
final class ResponseBlocks: Sendable {
    /// A blank line, ending a head.
    let crlf = ByteBuffer(string: "\r\n")
    /// `X-Cache: hit`
    let cacheHit = ByteBuffer(string: "X-Cache: hit\r\n")
    /// `X-Cache: miss`
    let cacheMiss = ByteBuffer(string: "X-Cache: miss\r\n")
    /// `Connection: close`
    let connectionClose = ByteBuffer(string: "Connection: close\r\n")
    /// `Connection: keep-alive` (for HTTP/1.0 clients that asked for it).
    let connectionKeepAlive = ByteBuffer(string: "Connection: keep-alive\r\n")
    /// `.dzi` descriptors: XML, short-lived, CORS.
    let descriptor = ResponseProfile(contentType: "application/xml", cacheControl: ResponseProfile.short, cors: true)
    /// JSON answers: short-lived, CORS.
    let json = ResponseProfile(contentType: "application/json", cacheControl: ResponseProfile.short, cors: true)
    /// JSON errors and health: not stored, CORS.
    let jsonNoStore = ResponseProfile(contentType: "application/json", cacheControl: ResponseProfile.noStore, cors: true)
    /// Prometheus text.
    let metrics = ResponseProfile(
        contentType: "text/plain; version=0.0.4; charset=utf-8", cacheControl: ResponseProfile.noStore, cors: false)
}
