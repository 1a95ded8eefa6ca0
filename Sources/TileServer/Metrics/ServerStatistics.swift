/// A snapshot of a server's cache and catalog counters (the numbers `/metrics` also shows).
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
    /// Of ``diskReads``, those done on an event loop, because the file was in the page cache.
    public var diskReadsOnEventLoops: Int
    /// Of ``diskReads``, those done by background warming after visible-rect queries.
    public var diskReadsWarming: Int
    /// Tile misses the cache did not admit (not asked for more often than the tile they would evict), sent from their
    /// files without entering the cache (`sendfile` from the page cache, or a read that does not wait for the disk).
    public var fileSends: Int
    /// Pyramids being served.
    public var images: Int
    /// Open client connections.
    public var connections: Int

    init(_ gauges: ServerGauges) {
        cacheHits = gauges.cache.hits
        cacheMisses = gauges.cache.misses
        cacheEvictions = gauges.cache.evictions
        cacheBytes = gauges.cache.bytes
        cacheEntries = gauges.cache.entries
        cacheBudget = gauges.cache.budget
        diskReads = gauges.diskReads.total
        diskReadsOnEventLoops = gauges.diskReads.onEventLoops
        diskReadsWarming = gauges.diskReads.warming
        fileSends = gauges.diskReads.fileSends
        images = gauges.images
        connections = gauges.connections
    }
}
