import Synchronization

/// An ``LRUCache`` shared by many threads (for example every SwiftNIO event loop), behind one `Mutex`.
///
/// Each operation holds the lock once, briefly, and calls no code of the caller's under it (other than `Key`'s
/// `hash(into:)` and `==`, which should be trivial): sequences are copied and predicates run before the lock is
/// taken, and evicted, replaced or removed values are released after it is dropped, so that freeing a large
/// tile never happens under the lock. A `Mutex` rather than an actor: event loops call this synchronously,
/// without hopping executors.
///
/// Operations and their semantics are those of ``LRUCache``; each is O(1) under the lock (hashing amortised)
/// unless noted.
///
/// With ``AdmissionPolicy/frequency(expectedEntries:)`` the cache also keeps a ``FrequencySketch`` of the keys
/// looked up, and ``admits(_:cost:)`` tells a caller whether a missed key is worth its place (TinyLFU): the cache
/// itself still stores whatever it is given.
public final class ConcurrentLRUCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    @usableFromInline let _state: Mutex<_Guarded>
    /// Whether ``admits(_:cost:)`` weighs frequencies (else the sketch is empty and never touched).
    @usableFromInline let _weighsFrequency: Bool

    /// What the lock guards: the cache and, with frequency admission, the sketch (one lock for both, so a lookup
    /// takes one lock).
    @usableFromInline
    struct _Guarded: Sendable {
        @usableFromInline var cache: LRUCache<Key, Value>
        @usableFromInline var sketch: FrequencySketch<Key>

        @inlinable
        init(cache: LRUCache<Key, Value>, sketch: FrequencySketch<Key>) {
            self.cache = cache
            self.sketch = sketch
        }
    }

    /// Whether ``ConcurrentLRUCache/admits(_:cost:)`` says yes to every newcomer or weighs it by how often it is
    /// asked for.
    public enum AdmissionPolicy: Sendable {
        /// Every newcomer is worth storing.
        case always
        /// Once the cache is full, a newcomer is worth storing only if it was looked up more often lately than
        /// the entry it would evict; sized for about `expectedEntries` entries.
        case frequency(expectedEntries: Int)
    }

    /// Creates an empty cache holding at most `budget` bytes.
    ///
    /// - Precondition: `budget ≥ 0`, `minimumCapacity ≥ 0`.
    public init(budget: Int, minimumCapacity: Int = 0, admission: AdmissionPolicy = .always) {
        let cache = LRUCache<Key, Value>(budget: budget, minimumCapacity: minimumCapacity)
        switch admission {
        case .always:
            _state = Mutex(_Guarded(cache: cache, sketch: FrequencySketch(expectedEntries: 0)))
            _weighsFrequency = false
        case .frequency(let expectedEntries):
            _state = Mutex(_Guarded(cache: cache, sketch: FrequencySketch(expectedEntries: expectedEntries)))
            _weighsFrequency = true
        }
    }

    /// Returns the value for `key` and makes it the most recently used entry; counts a hit or a miss (and, with
    /// frequency admission, a sighting of `key`).
    @inlinable
    public func value(for key: Key) -> Value? {
        _state.withLock { state in
            if _weighsFrequency { state.sketch.increment(key) }
            return state.cache.value(for: key)
        }
    }

    /// Whether storing an entry for `key` costing `cost` bytes is worthwhile now: never if it costs more than the
    /// whole budget (it would not be stored); always while it fits without evicting; when it would evict, only if
    /// `key` was looked up more often lately than the least recently used entry (ties refuse, so a cache full of
    /// equally popular entries is not churned). With ``AdmissionPolicy/always``, whenever it fits the budget.
    ///
    /// - Complexity: O(1).
    @inlinable
    public func admits(_ key: Key, cost: Int) -> Bool {
        _state.withLock { state in
            guard cost <= state.cache.budget else { return false }
            guard _weighsFrequency else { return true }
            guard state.cache.totalCost + cost > state.cache.budget, let victim = state.cache.leastRecentlyUsedKey else { return true }
            return state.sketch.frequency(key) > state.sketch.frequency(victim)
        }
    }

    /// Returns the value for `key` without changing its recency or the counters.
    @inlinable
    public func peek(_ key: Key) -> Value? {
        _state.withLock { $0.cache.peek(key) }
    }

    /// Whether `key` is in the cache; changes neither recency nor counters.
    @inlinable
    public func contains(_ key: Key) -> Bool {
        _state.withLock { $0.cache.contains(key) }
    }

    /// Stores `value` for `key` as the most recently used entry and evicts least recently used entries until the
    /// total cost fits the budget (see ``LRUCache/insert(_:for:cost:)``: an entry costing more than the whole
    /// budget is not stored, and any previous entry for `key` is removed).
    ///
    /// - Returns: How many entries were evicted.
    /// - Precondition: `cost ≥ 0`.
    @inlinable
    @discardableResult
    public func insert(_ value: Value, for key: Key, cost: Int) -> Int {
        // The replaced value and the evicted entries leave the lock in `released` and are freed after it.
        let released = _state.withLock { state in
            (replaced: state.cache.removeValue(for: key), evicted: state.cache.insert(value, for: key, cost: cost))
        }
        return released.evicted.count
    }

    /// Makes the given keys the most recently used entries, the first key the most recent of all (see
    /// ``LRUCache/touch(_:)``). The keys are copied into an array before the lock is taken.
    ///
    /// - Returns: How many distinct keys were found.
    /// - Complexity: O(k) for k keys.
    @inlinable
    @discardableResult
    public func touch(_ keys: some Sequence<Key>) -> Int {
        let keys = Array(keys)
        return _state.withLock { $0.cache.touch(keys) }
    }

    /// Removes the entry for `key` and returns its value, or `nil` if there was none.
    @inlinable
    @discardableResult
    public func removeValue(for key: Key) -> Value? {
        _state.withLock { $0.cache.removeValue(for: key) }
    }

    /// Removes every entry whose key satisfies `shouldBeRemoved` (for example every tile of an image that
    /// disappeared).
    ///
    /// Takes the lock twice: once to copy the keys, once to remove the chosen ones; the predicate runs in
    /// between, without the lock. An entry inserted in between is not considered, and one replaced in between is
    /// removed all the same. If the predicate throws, nothing is removed.
    ///
    /// - Returns: How many entries were removed.
    /// - Complexity: O(n).
    @discardableResult
    public func removeAll<E: Error>(where shouldBeRemoved: (Key) throws(E) -> Bool) throws(E) -> Int {
        let keys = _state.withLock { state in state.cache.map(\.key) }
        var doomed: [Key] = []
        for key in keys where try shouldBeRemoved(key) {
            doomed.append(key)
        }
        let removed = _state.withLock { state in doomed.compactMap { state.cache.removeValue(for: $0) } }
        return removed.count
    }

    /// Removes every entry; keeps the budget and the counters. The values are released after the lock.
    public func removeAll() {
        let old = _state.withLock { state in
            let old = state.cache
            state.cache.removeAll()
            return old
        }
        _ = old
    }

    /// The most bytes the entries may cost in total; setting a smaller budget evicts least recently used entries.
    ///
    /// - Precondition: the new budget is ≥ 0.
    public var budget: Int {
        get { _state.withLock { $0.cache.budget } }
        set { _ = _state.withLock { $0.cache.setBudget(newValue) } }
    }

    /// The number of entries.
    public var count: Int { _state.withLock { $0.cache.count } }

    /// The sum of the entries' costs, in bytes.
    public var totalCost: Int { _state.withLock { $0.cache.totalCost } }

    /// The counters and sizes, read under one lock hold so that they agree with each other.
    public var statistics: CacheStatistics { _state.withLock { $0.cache.statistics } }

    /// Checks the wrapped cache's structure under the lock (a testing hook; see ``LRUCache/_checkInvariants()``).
    public func _checkInvariants() {
        _state.withLock { $0.cache._checkInvariants() }
    }
}
