import Dispatch
import FoundationEssentials
import Glibc
import HTTPCore
import NIOCore
import NIOHTTP1
import NIOPosix
import ObjectStore
import Rendering
import SliceJobs
import TileSources

/// The pieces of a server before it listens: threads, catalog, cache, and the pipeline every connection gets.
struct ServerRuntime: Sendable {
    let configuration: ServerConfiguration
    let group: MultiThreadedEventLoopGroup
    let threadPool: NIOThreadPool
    let context: Services
    let loops: [ObjectIdentifier: LoopResources]
    /// How each object-store root's client is closed, at shutdown.
    let objectClients: [@Sendable () -> EventLoopFuture<Void>]

    /// Validates `configuration`, resolves its folders and starts the threads.
    ///
    /// - Throws: ``ServerError`` for a bad setting, a missing ROOT or a missing `--public` folder.
    init(_ configuration: ServerConfiguration) throws(ServerError) {
        try Self.validate(configuration)
        // Only object-store roots: no folder is scanned (and nothing can be uploaded).
        let root: String
        if configuration.root.isEmpty && !configuration.objectRoots.isEmpty {
            root = ""
        } else {
            guard let real = PathContainment.realPath(configuration.root), FileSignature.isDirectory(real) else {
                throw ServerError("ROOT \(configuration.root) is not a folder")
            }
            root = real
        }
        let storeRoots = try Self.objectStoreRoots(configuration)
        let publicDirectory = StaticFiles.locate(explicit: configuration.publicDirectory)
        if let explicit = configuration.publicDirectory, publicDirectory == nil {
            throw ServerError("the public folder \(explicit) is not a folder")
        }
        var access: AccessPolicy?
        var writeAccess: AccessPolicy?
        if let file = configuration.accessFile {
            do {
                let policy = try AccessPolicy(file: file, environment: ProcessInfo.processInfo.environment)
                access = policy.isAllPublic ? nil : policy
                // Uploads need write tokens even where every image is public to read.
                writeAccess = policy
            } catch {
                throw ServerError(error.message)
            }
        }
        var tls: TLSCredentials?
        if let certificate = configuration.tlsCertificate, let key = configuration.tlsKey {
            do {
                tls = try TLSCredentials(certificatePath: certificate, keyPath: key)
            } catch {
                throw ServerError("TLS: \(error.description)")
            }
        }
        let descriptorLimit = Self.raiseDescriptorLimit()
        // Before the threads start: they choose their malloc arenas on their first allocation.
        ProcessMemory.configure()
        self.configuration = configuration
        group = MultiThreadedEventLoopGroup(numberOfThreads: configuration.eventLoopThreads)
        let stores = Self.objectStores(storeRoots, configuration: configuration, group: group)
        let threadPool = NIOThreadPool(numberOfThreads: configuration.fileThreads)
        threadPool.start()
        self.threadPool = threadPool
        let catalog = ImageCatalog(
            root: root, maxDepth: configuration.maxScanDepth, logger: configuration.logger,
            directories: LevelDirectoryCache(capacity: configuration.levelDirectoryBudget(descriptorLimit: descriptorLimit)),
            storedFiles: StoredFileCache(capacity: configuration.levelDirectoryBudget(descriptorLimit: descriptorLimit)),
            fullWalkEvery: configuration.scansPerFullWalk, objectRoots: stores.map(\.catalog),
            objectRescanInterval: TimeAmount(configuration.storeRescanInterval))
        objectClients = stores.map(\.shutdown)
        var loops: [ObjectIdentifier: LoopResources] = [:]
        let openTileFiles = min(configuration.openTileFilesPerLoop, descriptorLimit / 2 / configuration.eventLoopThreads)
        let sink = configuration.accessLog.map { _ in AccessLogSink() }
        let everyAnswer = configuration.hstsMaxAge.map { "Strict-Transport-Security: max-age=\($0)\r\n" } ?? ""
        for (index, loop) in group.makeIterator().enumerated() {
            loops[ObjectIdentifier(loop)] = LoopResources(
                eventLoop: loop, catalog: catalog, metricsShard: index, openTileFiles: openTileFiles, accessLog: configuration.accessLog,
                sink: sink, logger: configuration.logger, everyAnswer: everyAnswer)
        }
        self.loops = loops
        let renderBudget = RenderBudget(limit: configuration.iiif.renderBudgetBytes)
        let tiles = TileStore(budget: configuration.cacheBytes, threadPool: threadPool, renderBudget: renderBudget)
        // The headers of the service's own that scripts read: the viewer's cache badge, IIIF's links, the image list's
        // count, signed tile queries, token refusals, IIIF auth challenges, an upload's job.
        let cors = CORSPolicy(
            origins: configuration.corsOrigins,
            exposing: ["X-Cache", "Link", "X-Total-Count", "Tiler-Tile-Query", "Tiler-Token-Refused", "WWW-Authenticate", "Location"])
        let loopResources = Array(loops.values)
        let published = { @Sendable in
            let changes = catalog.rescan()
            tiles.evict(images: changes.withdrawn)
            if !changes.withdrawn.isEmpty {
                for resources in loopResources { resources.closeTileFiles(of: changes.withdrawn) }
            }
        }
        let jobs = JobQueue(
            root: root, maxDepth: configuration.maxScanDepth, threads: configuration.sliceJobs, catalog: catalog, logger: configuration.logger,
            onPublished: published, onViewable: configuration.onViewable)
        var inbox: Inbox?
        if let folder = configuration.inbox {
            do {
                inbox = try Inbox(directory: folder, queue: jobs)
            } catch {
                jobs.shutdown()
                throw ServerError("the inbox \(folder) cannot be used: \(error.localizedDescription)")
            }
        }
        context = Services(
            configuration: configuration, catalog: catalog, tiles: tiles,
            warmer: TileWarmer(limit: configuration.maxPrefetchTiles) { key, image, queuedAt in tiles.warm(key, of: image, queuedAt: queuedAt) },
            renders: RenderPool(
                threads: configuration.iiif.renderThreads, queueLimit: configuration.iiif.renderQueueLimit,
                jpegQuality: configuration.iiif.jpegQuality),
            renderBudget: renderBudget,
            staticFiles: publicDirectory.map {
                StaticFiles(root: $0, threadPool: threadPool, maxBytes: configuration.maxStaticFileBytes, cors: cors)
            },
            metrics: Metrics(shardCount: loops.count),
            connections: ConnectionRegistry(
                maxPerAddress: configuration.maxConnectionsPerAddress,
                capThreshold: configuration.perAddressCapThreshold ?? descriptorLimit * 3 / 8 / 2),
            blocks: ResponseBlocks(cors: cors), access: access, writeAccess: writeAccess, jobs: jobs, inbox: inbox,
            tls: tls)
    }

    /// Lifts the soft limit on open descriptors to the hard one (as servers do): each connection takes one, each
    /// event loop keeps up to half the limit's share of tile files open, and the level folders held open take up to
    /// an eighth (see ``LevelDirectoryCache``), and the files of pyramids stored in one file as many again
    /// (``StoredFileCache``), whatever the size of the catalog. Beyond the limit nothing breaks —
    /// accepts wait, tiles take the path-based read, a rescan keeps the last catalog — but nothing should hit
    /// Debian's default soft 1024.
    ///
    /// - Returns: The soft limit in force afterwards.
    private static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            let raised = min(limit.rlim_max, 1 << 20)
            var wanted = limit
            wanted.rlim_cur = raised
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &wanted) == 0 { limit.rlim_cur = raised }
        }
        return Int(min(limit.rlim_cur, 1 << 20))
    }

    /// Rescans ROOT and withdraws what may no longer be served: the cached tiles and open tile files of images removed
    /// or re-sliced, and of images a level folder of which left ROOT. Blocking: call it on a file thread.
    func rescan(full: Bool = false) -> CatalogChanges {
        let changes = context.catalog.rescan(full: full)
        let withdrawn = changes.withdrawn
        context.tiles.evict(images: withdrawn)
        if !withdrawn.isEmpty { closeTileFiles(of: withdrawn) }
        return changes
    }

    /// Closes, on each event loop, the open tile files of the given images (every one when `images` is `nil`).
    func closeTileFiles(of images: Set<Int>?) {
        for resources in loops.values {
            resources.closeTileFiles(of: images)
        }
    }

    /// Checks `configuration`: its operators' settings (``ServerConfiguration/problems()``, each error naming its
    /// setting) and the library-only ones.
    private static func validate(_ configuration: ServerConfiguration) throws(ServerError) {
        if let problem = configuration.problems().first { throw ServerError(problem) }
        guard configuration.cacheBytes >= 0 else { throw ServerError("the cache budget must be ≥ 0 bytes") }
        guard configuration.maxPrefetchTiles >= 0 else { throw ServerError("maxPrefetchTiles must be ≥ 0") }
        guard (configuration.levelDirectoryLimit ?? 0) >= 0 else { throw ServerError("levelDirectoryLimit must be ≥ 0") }
        guard configuration.fullRescanInterval >= configuration.rescanInterval else {
            throw ServerError("fullRescanInterval must be ≥ rescanInterval")
        }
        guard configuration.rescanInterval > .zero else { throw ServerError("rescanInterval must be > 0") }
        guard configuration.maxRequestBodyBytes >= 0 else { throw ServerError("the request body limit must be ≥ 0 bytes") }
        guard configuration.maxHeadBytes >= 256, configuration.maxPathBytes >= 16 else {
            throw ServerError("maxHeadBytes must be ≥ 256 and maxPathBytes ≥ 16")
        }
        try configuration.iiif.validate()
    }

    /// The bootstrap that gives each connection the handlers of ``addHandlers(to:resources:)``.
    ///
    /// When `accept` fails (out of descriptors, most often) the listening socket pauses for half a second instead of
    /// retrying at once (``AcceptBackoff``), and the failure is logged at most every 10 s; connections already open
    /// keep being served. While descriptors run short (``ServerConfiguration/perAddressCapThreshold``), a connection
    /// from an address that already holds ``ServerConfiguration/maxConnectionsPerAddress`` is closed as soon as it is
    /// accepted.
    func bootstrap() -> ServerBootstrap {
        let loops = self.loops
        let runtime = self
        let logger = configuration.logger
        let acceptFailures = OccasionalLog(logger: logger, level: .error)
        let refusals = OccasionalLog(logger: logger)
        let cap = configuration.maxConnectionsPerAddress
        return ServerBootstrap(group: group)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(AcceptBackoff(log: acceptFailures))
                }
            }
            .serverChannelOption(.backlog, value: Int32(clamping: configuration.effectiveBacklog))
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.maxMessagesPerRead, value: 16)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    guard runtime.context.connections.admit(channel) else {
                        refusals.note(
                            "Closing new connections from \(channel.remoteAddress?.ipAddress ?? "an unknown address"): it holds \(cap) already while connections use half the descriptors left for them (--max-connections-per-address)"
                        )
                        channel.close(promise: nil)
                        return
                    }
                    try runtime.addHandlers(to: channel, resources: loops[ObjectIdentifier(channel.eventLoop)]!)
                }
            }
    }

    /// Stops the threads (after a failed start).
    func shutdown() async {
        let jobs = context.jobs
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                jobs.shutdown()
                continuation.resume()
            }
        }
        for resources in loops.values {
            try? await resources.flushAccessLog().get()
        }
        await context.renders.shutdown()
        await context.warmer.shutdown()
        for shutdown in objectClients { try? await shutdown().get() }
        try? await threadPool.shutdownGracefully()
        try? await group.shutdownGracefully()
    }
}
