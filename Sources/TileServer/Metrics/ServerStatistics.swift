import HTTPCore
import ImageCodecs
import Rendering
import TileCache
import TileSources

/// A snapshot of a server's counters and sizes besides its request counts: the tile cache, the tile reads by kind,
/// the catalog, the connections, the IIIF renders and the process's memory. The one statistics type: ``Server/statistics`` returns it and
/// `/metrics` shows it.
public struct ServerStatistics: Sendable, Hashable {
    /// Tile requests answered from memory.
    public var cacheHits: Int
    /// Tile requests that had to wait for the disk (or for another request's read of the same tile).
    public var cacheMisses: Int
    /// Tiles evicted to keep within the budget.
    public var cacheEvictions: Int
    /// Bytes the cache holds (tile bytes plus their prepared header lines).
    public var cacheBytes: Int
    /// Tiles the cache holds.
    public var cacheEntries: Int
    /// The cache's budget, in bytes.
    public var cacheBudget: Int
    /// Tile files read from disk: once per tile brought into the cache, however many requests wanted it.
    public var diskReads: Int
    /// Of ``diskReads``, those done on an event loop, because the file was in the page cache (no thread hop).
    public var diskReadsOnEventLoops: Int
    /// Of ``diskReads``, those done by background warming after visible-rect queries.
    public var diskReadsWarming: Int
    /// Tile misses the cache did not admit (not asked for more often than the tile they would evict), sent from their
    /// files without entering the cache (`sendfile` from the page cache, or a read that does not wait for the disk).
    public var fileSends: Int
    /// Tile misses that waited for a read already under way (a warming read or another request's) instead of reading:
    /// not hits, not reads of their own.
    public var tileJoins: Int
    /// Of ``diskReadsWarming``, the warmed tiles some request took; the rest were warmed and never asked for.
    public var diskReadsWarmingRequested: Int
    /// Time from a visible-rect query to its tiles' arrival in the cache, for the tiles warming read.
    public var warmingLag: WarmingLagCounts
    /// CPU time the warming thread has used, in seconds (its share of the machine).
    public var warmingCPUSeconds = 0.0
    /// Pyramids being served.
    public var images: Int
    /// Open client connections.
    public var connections: Int
    /// Connections closed as soon as they were accepted because their address held the most allowed.
    public var connectionsRefused: Int
    /// Connections closed because their client took no response bytes for the send timeout.
    public var sendTimeouts: Int
    /// Level folders held open for tile reads (at most ``levelDirectoryBudget``).
    public var levelDirectories: Int = 0
    /// The most level folders held open at once.
    public var levelDirectoryBudget: Int = 0
    /// Files of pyramids stored in one file (pyramidal TIFFs) held open for tile reads; those opened so far.
    public var storedFilesOpen: Int = 0
    public var storedFileOpenings: Int = 0
    /// Tiles of stored pyramids not made because every request for them was cancelled before a thread took them.
    public var storedTilesAbandoned: Int = 0
    /// A VMS slide's JPEGs mapped for reading, at most ``slideJPEGMapBudget`` at once; mappings undone to keep within it.
    public var slideJPEGMaps: Int = 0
    public var slideJPEGMapBudget: Int = 0
    public var slideJPEGUnmaps: Int = 0
    /// IIIF renders that started on a render thread (not stored tiles, not `HEAD`, not refused).
    public var iiifRenders: Int
    /// IIIF renders cancelled because their client had gone: dropped while waiting for a thread, or stopped between
    /// rows.
    public var iiifRendersCancelled: Int
    /// IIIF renders refused (503) because the render budget was in use.
    public var iiifRendersRefused: Int
    /// Bytes the render budget holds now: renders running and bodies not yet written to their sockets.
    public var iiifRenderBytes: Int
    /// The render budget, in bytes.
    public var iiifRenderBudget: Int
    /// The process's resident memory now, in bytes (`VmRSS`).
    public var residentBytes: Int
    /// The most resident memory the process has held, in bytes (`VmHWM`).
    public var residentPeakBytes: Int
    /// What `malloc` holds from the system (its heaps and its separately mapped blocks), in bytes.
    public var mallocSystemBytes: Int
    /// What `malloc` has handed out and not had back, in bytes: the tile cache, renders, connections, everything.
    public var mallocInUseBytes: Int
    /// Free bytes `malloc` keeps in its heaps for reuse (resident or not), in bytes.
    public var mallocFreeBytes: Int
    /// `malloc`'s heaps (arenas).
    public var mallocArenas: Int
    /// Times free heap pages were given back to the system (`malloc_trim`).
    public var mallocTrims: Int
    /// Resident bytes those trims gave back.
    public var mallocTrimmedBytes: Int
    /// Time spent trimming, in seconds.
    public var mallocTrimSeconds: Double

    /// The statistics of `cache` and of the reads `tiles` counted, with the catalog's count, the connections' and the
    /// renders'.
    init(
        cache: CacheStatistics, tiles: TileStore, images: Int, connections: ConnectionRegistry, renders: RenderPool, renderBudget: RenderBudget
    ) {
        cacheHits = cache.hits
        cacheMisses = cache.misses
        cacheEvictions = cache.evictions
        cacheBytes = cache.bytes
        cacheEntries = cache.entries
        cacheBudget = cache.budget
        diskReads = tiles.readCount
        diskReadsOnEventLoops = tiles.eventLoopReadCount
        diskReadsWarming = tiles.warmingReadCount
        fileSends = tiles.fileSendCount
        tileJoins = tiles.joinCount
        diskReadsWarmingRequested = tiles.warmedRequestedCount
        warmingLag = tiles.warmingLag.snapshot()
        self.images = images
        self.connections = connections.count
        connectionsRefused = connections.refused
        sendTimeouts = connections.sendTimeouts
        iiifRenders = renders.started
        iiifRendersCancelled = renders.cancelled
        iiifRendersRefused = renderBudget.refused
        iiifRenderBytes = renderBudget.reserved
        iiifRenderBudget = renderBudget.limit
        let maps = RestartJPEGGrid.mapStatistics
        slideJPEGMaps = maps.mapped
        slideJPEGMapBudget = maps.budget
        slideJPEGUnmaps = maps.unmapped
        let memory = ProcessMemory.sample()
        residentBytes = memory.residentBytes
        residentPeakBytes = memory.residentPeakBytes
        mallocSystemBytes = memory.mallocSystemBytes
        mallocInUseBytes = memory.mallocInUseBytes
        mallocFreeBytes = memory.mallocFreeBytes
        mallocArenas = memory.mallocArenas
        mallocTrims = memory.trims
        mallocTrimmedBytes = memory.trimmedBytes
        mallocTrimSeconds = memory.trimSeconds
    }
}
