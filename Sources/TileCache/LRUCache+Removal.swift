extension LRUCache {
    /// Removes the entry for `key`.
    ///
    /// - Returns: Its value, or `nil` if `key` was not in the cache.
    /// - Complexity: O(1) (hashing amortised).
    @inlinable
    @discardableResult
    public mutating func removeValue(for key: Key) -> Value? {
        guard let slot = _slots[key] else { return nil }
        return _remove(slot).value
    }

    /// Removes every entry for which `shouldBeRemoved` returns `true` (for example every tile of an image
    /// that disappeared). The others keep their recency order.
    ///
    /// If the predicate throws, the entries removed so far stay removed and the error is rethrown.
    ///
    /// - Returns: How many entries were removed.
    /// - Complexity: O(s), with one predicate call per entry, for s slots (the most entries held at once).
    @discardableResult
    public mutating func removeAll<E: Error>(
        where shouldBeRemoved: (_ key: Key, _ value: Value) throws(E) -> Bool
    ) throws(E) -> Int {
        var removed = 0
        for slot in _nodes.indices.dropFirst() {
            guard let key = _nodes[slot].key, let value = _nodes[slot].value else { continue }
            if try shouldBeRemoved(key, value) {
                _ = _remove(slot)
                removed += 1
            }
        }
        return removed
    }

    /// Removes every entry and releases the storage; keeps the budget and the counters.
    ///
    /// - Complexity: O(n).
    public mutating func removeAll() {
        _nodes = [_Node.sentinel]
        _slots = [:]
        _freeHead = -1
        _totalCost = 0
    }
}
