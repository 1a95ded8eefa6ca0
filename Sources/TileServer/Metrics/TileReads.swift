/// How many tile files the store has read, and where.
struct TileReads: Sendable {
    /// Every read that filled the cache.
    var total: Int
    /// Reads done on an event loop because the bytes were in the page cache (no thread hop).
    var onEventLoops: Int
    /// Reads done by background warming after visible-rect queries.
    var warming: Int
    /// Misses the cache did not admit, sent from their files without entering the cache (`sendfile`, or a read
    /// without waiting where the kernel cannot tell what is in the page cache).
    var fileSends: Int
}
