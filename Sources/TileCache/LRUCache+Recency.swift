extension LRUCache {
    /// The key the next eviction would take: the least recently used entry's, or `nil` when the cache is empty.
    ///
    /// - Complexity: O(1).
    @inlinable
    public var leastRecentlyUsedKey: Key? {
        _nodes[_nodes[0].previous].key
    }

    /// Makes the given keys the most recently used entries, the first key the most recent of all.
    ///
    /// Afterwards the touched entries lead the recency order in the order of `keys` (for a viewport's tiles
    /// listed nearest-the-centre first, the centre tile becomes the last to be evicted), followed by the other
    /// entries in their previous order. Keys not in the cache are skipped; a key listed twice keeps the position
    /// of its first occurrence. Neither ``hits`` nor ``misses`` change.
    ///
    /// - Returns: How many distinct keys were found.
    /// - Complexity: O(k) for k keys (hashing amortised); no allocation.
    @inlinable
    @discardableResult
    public mutating func touch(_ keys: some Sequence<Key>) -> Int {
        _touchEpoch += 1
        let epoch = _touchEpoch
        var anchor = 0
        var found = 0
        for key in keys {
            guard let slot = _slots[key], _nodes[slot].touchStamp != epoch else { continue }
            _nodes[slot].touchStamp = epoch
            found += 1
            // Each touched entry goes right after the previous one, so the list keeps the sequence's order.
            if _nodes[anchor].next != slot {
                _unlink(slot)
                _link(slot, after: anchor)
            }
            anchor = slot
        }
        return found
    }
}
