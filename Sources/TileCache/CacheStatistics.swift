/// A snapshot of a cache's counters and sizes, for metrics (the counters only ever grow).
public struct CacheStatistics: Sendable, Hashable {
    /// Lookups that found their key.
    public var hits: Int
    /// Lookups that did not find their key.
    public var misses: Int
    /// Entries evicted to respect the budget.
    public var evictions: Int
    /// Inserts that stored their entry.
    public var insertions: Int
    /// Entries held now.
    public var entries: Int
    /// The entries' total cost now, in bytes.
    public var bytes: Int
    /// The budget now, in bytes.
    public var budget: Int

    /// Creates a snapshot from its fields.
    public init(hits: Int, misses: Int, evictions: Int, insertions: Int, entries: Int, bytes: Int, budget: Int) {
        self.hits = hits
        self.misses = misses
        self.evictions = evictions
        self.insertions = insertions
        self.entries = entries
        self.bytes = bytes
        self.budget = budget
    }
}
