/// A least-recently-used cache with a budget in bytes.
///
/// Every entry carries a cost in bytes given by the caller (for a tile: the size of its encoded image). After
/// each mutating call returns, ``totalCost`` ≤ ``budget``: inserting evicts the least recently used entries
/// until the new entry fits, and an entry whose cost alone exceeds the budget is not stored at all.
///
/// Recency: ``value(for:)``, ``insert(_:for:cost:)`` and ``touch(_:)`` make entries the most recently used;
/// ``peek(_:)``, ``contains(_:)`` and iteration do not. Eviction takes the least recently used entry first, so
/// tiles that left the screen go before the tiles a visible-rect query touched.
///
/// Storage: a hash map from key to slot, and an intrusive doubly-linked list threaded through one contiguous
/// array of slots, with a free list of vacated slots. There are no per-entry allocations; lookup, insertion,
/// promotion, removal and eviction are O(1) (hashing amortised). Iterating visits entries from the most to the
/// least recently used.
///
/// `LRUCache` is a struct with value semantics, like `Dictionary`: its storage is two copy-on-write buffers, so
/// it sits directly inside a `Mutex` (see ``ConcurrentLRUCache``) with no extra box, and a copy is O(1) — but the
/// first mutation of a shared copy duplicates the storage in O(n), so do not copy a live cache. (A non-copyable
/// type would rule such copies out, but could not be a `Sequence` nor be used by most generic code.) It does no
/// locking: share it between threads only behind a lock.
///
/// The operations are `@inlinable` so that a client's concrete `Key` and `Value` are specialised into them:
/// measured across modules, lookups were about five times faster than through unspecialised generic code.
public struct LRUCache<Key: Hashable, Value> {
    /// One entry as a key-value pair.
    public typealias Element = (key: Key, value: Value)

    /// The slots. Slot 0 is the sentinel of a circular list: its `next` is the most recently used entry and its
    /// `previous` the least recently used. Vacated slots hold no key or value and are chained through `next`
    /// from `_freeHead`.
    @usableFromInline var _nodes: [_Node]
    /// The slot of every stored key.
    @usableFromInline var _slots: [Key: Int]
    /// The first vacated slot, or `-1`.
    @usableFromInline var _freeHead: Int
    @usableFromInline var _totalCost: Int
    @usableFromInline var _budget: Int
    /// Stamps the slots one ``touch(_:)`` call has moved, to ignore repeated keys.
    @usableFromInline var _touchEpoch: Int
    @usableFromInline var _hits: Int
    @usableFromInline var _misses: Int
    @usableFromInline var _evictions: Int
    @usableFromInline var _insertions: Int

    /// Creates an empty cache holding at most `budget` bytes.
    ///
    /// - Parameters:
    ///   - budget: The most bytes the entries may cost in total.
    ///   - minimumCapacity: How many entries to reserve room for up front.
    /// - Precondition: `budget ≥ 0`, `minimumCapacity ≥ 0`.
    /// - Complexity: O(`minimumCapacity`).
    public init(budget: Int, minimumCapacity: Int = 0) {
        precondition(budget >= 0, "the budget must not be negative")
        precondition(minimumCapacity >= 0, "the capacity must not be negative")
        _nodes = [_Node.sentinel]
        _nodes.reserveCapacity(minimumCapacity + 1)
        _slots = Dictionary(minimumCapacity: minimumCapacity)
        _freeHead = -1
        _totalCost = 0
        _budget = budget
        _touchEpoch = 0
        _hits = 0
        _misses = 0
        _evictions = 0
        _insertions = 0
    }

    /// The number of entries. O(1).
    @inlinable public var count: Int { _slots.count }

    /// Whether the cache holds no entry. O(1).
    @inlinable public var isEmpty: Bool { _slots.isEmpty }

    /// The sum of the entries' costs, in bytes; never more than ``budget`` between calls. O(1).
    @inlinable public var totalCost: Int { _totalCost }

    /// The most bytes the entries may cost in total.
    ///
    /// Setting a smaller budget evicts least recently used entries until ``totalCost`` fits (see
    /// ``setBudget(_:)``, which also returns them).
    ///
    /// - Precondition: the new budget is ≥ 0.
    /// - Complexity: O(1), plus O(1) per evicted entry.
    @inlinable public var budget: Int {
        get { _budget }
        set { setBudget(newValue) }
    }

    /// How many ``value(for:)`` calls found their key.
    @inlinable public var hits: Int { _hits }
    /// How many ``value(for:)`` calls did not find their key.
    @inlinable public var misses: Int { _misses }
    /// How many entries were evicted to respect the budget (not those removed explicitly or replaced).
    @inlinable public var evictions: Int { _evictions }
    /// How many ``insert(_:for:cost:)`` calls stored their entry (new keys and replacements alike).
    @inlinable public var insertions: Int { _insertions }

    /// The counters and sizes at this moment.
    public var statistics: CacheStatistics {
        CacheStatistics(
            hits: _hits, misses: _misses, evictions: _evictions, insertions: _insertions,
            entries: count, bytes: _totalCost, budget: _budget)
    }

    /// Returns the value for `key` and makes it the most recently used entry; counts a hit or a miss.
    ///
    /// - Returns: The value, or `nil` if `key` is not in the cache.
    /// - Complexity: O(1) (hashing amortised).
    @inlinable
    public mutating func value(for key: Key) -> Value? {
        guard let slot = _slots[key] else {
            _misses += 1
            return nil
        }
        _hits += 1
        _moveToFront(slot)
        return _nodes[slot].value
    }

    /// Returns the value for `key` without changing its recency or the counters.
    ///
    /// - Complexity: O(1) (hashing amortised).
    @inlinable
    public func peek(_ key: Key) -> Value? {
        guard let slot = _slots[key] else { return nil }
        return _nodes[slot].value
    }

    /// Whether `key` is in the cache; changes neither recency nor counters.
    ///
    /// - Complexity: O(1) (hashing amortised).
    @inlinable
    public func contains(_ key: Key) -> Bool {
        _slots[key] != nil
    }

    /// Stores `value` for `key` as the most recently used entry, then evicts least recently used entries until
    /// the total cost fits the budget.
    ///
    /// An existing entry for `key` is replaced (its cost too). If `cost` exceeds ``budget`` the value is not
    /// stored, any previous entry for `key` is removed (it is stale), nothing is evicted and ``insertions`` does
    /// not change. An entry never evicts itself.
    ///
    /// - Parameters:
    ///   - value: The value to store.
    ///   - key: Its key.
    ///   - cost: What the entry costs against the budget, in bytes.
    /// - Returns: The evicted entries, least recently used first (empty when nothing was evicted; no
    ///   allocation then). Their values are released when the caller drops the array.
    /// - Precondition: `cost ≥ 0`.
    /// - Complexity: O(1) (hashing amortised), plus O(1) per evicted entry.
    @inlinable
    @discardableResult
    public mutating func insert(_ value: Value, for key: Key, cost: Int) -> [Element] {
        precondition(cost >= 0, "an entry's cost must not be negative")
        if let slot = _slots[key] {
            guard cost <= _budget else {
                _ = _remove(slot)
                return []
            }
            _totalCost += cost - _nodes[slot].cost
            _nodes[slot].value = value
            _nodes[slot].cost = cost
            _moveToFront(slot)
            _insertions += 1
            return _evictToBudget()
        }
        guard cost <= _budget else { return [] }
        // Evicting first lets the new entry take the slot just vacated: never more slots than the most entries
        // held at once.
        let evicted = _evictToBudget(reserving: cost)
        let slot = _allocate(key: key, value: value, cost: cost)
        _slots[key] = slot
        _link(slot, after: 0)
        _totalCost += cost
        _insertions += 1
        return evicted
    }

    /// Sets ``budget`` and evicts least recently used entries until ``totalCost`` fits it.
    ///
    /// - Returns: The evicted entries, least recently used first.
    /// - Precondition: `newBudget ≥ 0`.
    /// - Complexity: O(1), plus O(1) per evicted entry.
    @inlinable
    @discardableResult
    public mutating func setBudget(_ newBudget: Int) -> [Element] {
        precondition(newBudget >= 0, "the budget must not be negative")
        _budget = newBudget
        return _evictToBudget()
    }
}

extension LRUCache: Sendable where Key: Sendable, Value: Sendable {}
