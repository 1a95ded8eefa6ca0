import HTTPCore
import NIOCore
import Rendering
import SliceJobs
import TileSources

/// The services every connection's handler uses: the catalog, the tile store, the viewer's files, the metrics and the
/// pre-encoded response pieces. Immutable or internally synchronised.
final class Services: Sendable {
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
    /// The memory IIIF renders and their unsent bodies may hold.
    let renderBudget: RenderBudget
    /// The viewer's files, if a `Public/` folder was found.
    let staticFiles: StaticFiles?
    /// Request counters.
    let metrics: Metrics
    /// The open client connections.
    let connections: ConnectionRegistry
    /// The fixed pieces of responses.
    let blocks: ResponseBlocks
    /// What the HTTP core's connections share: admission limits, response pieces, the metrics, the connections.
    let connectionServices: ConnectionServices
    /// Files that could not be read (at most a line every 10 s: a client asking in a loop must not flood the log).
    let readFailures: OccasionalLog
    /// IIIF renders that failed (as rate-limited).
    let renderFailures: OccasionalLog
    /// Who may see which images (nil: everything is public, nothing is checked).
    let access: AccessPolicy?
    /// The policy whose keys verify write tokens (uploads, the job list, cancelling): the `--access` policy even when it
    /// makes every image public (then ``access`` is nil); nil without `--access`: uploads are off.
    let writeAccess: AccessPolicy?
    /// The slicing jobs (uploads and the inbox).
    let jobs: JobQueue
    /// The `--inbox` folder's watcher, if one was given.
    let inbox: Inbox?
    /// The certificate and key of HTTPS on the main port, or nil: plain HTTP.
    let tls: TLSCredentials?

    /// Assembles the shared state.
    init(
        configuration: ServerConfiguration, catalog: ImageCatalog, tiles: TileStore, warmer: TileWarmer, renders: RenderPool,
        renderBudget: RenderBudget, staticFiles: StaticFiles?,
        metrics: Metrics, connections: ConnectionRegistry, blocks: ResponseBlocks, access: AccessPolicy? = nil, writeAccess: AccessPolicy? = nil,
        jobs: JobQueue,
        inbox: Inbox? = nil, tls: TLSCredentials? = nil
    ) {
        self.tls = tls
        self.access = access
        self.writeAccess = writeAccess
        self.jobs = jobs
        self.inbox = inbox
        self.blocks = blocks
        self.configuration = configuration
        self.catalog = catalog
        self.tiles = tiles
        self.warmer = warmer
        self.renders = renders
        self.renderBudget = renderBudget
        self.staticFiles = staticFiles
        self.metrics = metrics
        self.connections = connections
        connectionServices = ConnectionServices(
            blocks: blocks.http,
            admission: RequestAdmission(maxBodyBytes: configuration.maxRequestBodyBytes, maxUploadBytes: configuration.maxUploadBytes),
            maxHeadBytes: configuration.maxHeadBytes, counter: metrics, connections: connections,
            filesAsBytes: tls != nil)
        readFailures = OccasionalLog(logger: configuration.logger, level: .error, interval: .seconds(10))
        renderFailures = OccasionalLog(logger: configuration.logger, level: .error, interval: .seconds(10))
    }

    /// The numbers `/metrics` shows besides request counts.
    var statistics: ServerStatistics {
        var statistics = ServerStatistics(
            cache: tiles.cache.statistics, tiles: tiles, images: catalog.count, connections: connections, renders: renders,
            renderBudget: renderBudget)
        statistics.levelDirectories = catalog.directories.count
        statistics.levelDirectoryBudget = catalog.directories.capacity
        statistics.storedFilesOpen = catalog.storedFiles.count
        statistics.storedFileOpenings = catalog.storedFiles.openCount
        statistics.storedTilesAbandoned = tiles.abandonedMakeCount
        statistics.warmingCPUSeconds = warmer.cpuSeconds
        return statistics
    }
}
