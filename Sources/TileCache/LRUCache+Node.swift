extension LRUCache {
    /// One slot of the node array: an entry and its links in the recency list, or a vacated slot.
    @usableFromInline
    struct _Node {
        /// The entry's key; `nil` in the sentinel and in vacated slots.
        @usableFromInline var key: Key?
        /// The entry's value; `nil` exactly when `key` is.
        @usableFromInline var value: Value?
        /// The entry's cost in bytes; 0 in the sentinel and in vacated slots.
        @usableFromInline var cost: Int
        /// The next more recently used slot (the sentinel's is the least recently used entry).
        @usableFromInline var previous: Int
        /// The next less recently used slot (the sentinel's is the most recently used entry); in a vacated
        /// slot, the next vacated slot or `-1`.
        @usableFromInline var next: Int
        /// The last ``LRUCache/touch(_:)`` call that moved this slot.
        @usableFromInline var touchStamp: Int

        @inlinable
        init(key: Key?, value: Value?, cost: Int, previous: Int, next: Int) {
            self.key = key
            self.value = value
            self.cost = cost
            self.previous = previous
            self.next = next
            self.touchStamp = 0
        }

        /// The sentinel of an empty list: it links to itself.
        @inlinable
        static var sentinel: _Node { _Node(key: nil, value: nil, cost: 0, previous: 0, next: 0) }
    }

    /// Takes `slot` out of the recency list.
    @inlinable
    mutating func _unlink(_ slot: Int) {
        let previous = _nodes[slot].previous
        let next = _nodes[slot].next
        _nodes[previous].next = next
        _nodes[next].previous = previous
    }

    /// Puts `slot` into the recency list just after `anchor` (just less recently used than it).
    @inlinable
    mutating func _link(_ slot: Int, after anchor: Int) {
        let next = _nodes[anchor].next
        _nodes[slot].previous = anchor
        _nodes[slot].next = next
        _nodes[anchor].next = slot
        _nodes[next].previous = slot
    }

    /// Makes `slot` the most recently used entry.
    @inlinable
    mutating func _moveToFront(_ slot: Int) {
        // A repeated hit on the newest tile is common (the same tile requested twice); skip the four writes.
        guard _nodes[0].next != slot else { return }
        _unlink(slot)
        _link(slot, after: 0)
    }

    /// Fills a vacated slot, or appends one, with an unlinked entry; returns its index.
    @inlinable
    mutating func _allocate(key: Key, value: Value, cost: Int) -> Int {
        let node = _Node(key: key, value: value, cost: cost, previous: -1, next: -1)
        guard _freeHead >= 0 else {
            _nodes.append(node)
            return _nodes.count - 1
        }
        let slot = _freeHead
        _freeHead = _nodes[slot].next
        _nodes[slot] = node
        return slot
    }

    /// Removes the entry in `slot` from the list, the map and the total cost, vacates the slot, and returns the
    /// entry (so that the caller decides where its value is released).
    @inlinable
    mutating func _remove(_ slot: Int) -> Element {
        _unlink(slot)
        let key = _nodes[slot].key!
        let value = _nodes[slot].value!
        _slots.removeValue(forKey: key)
        _totalCost -= _nodes[slot].cost
        _nodes[slot] = _Node(key: nil, value: nil, cost: 0, previous: -1, next: _freeHead)
        _freeHead = slot
        return (key, value)
    }

    /// Evicts least recently used entries until the total cost plus `reserved` fits the budget; returns them in
    /// that order.
    @inlinable
    mutating func _evictToBudget(reserving reserved: Int = 0) -> [Element] {
        var evicted: [Element] = []
        while _totalCost > _budget - reserved {
            evicted.append(_remove(_nodes[0].previous))
            _evictions += 1
        }
        return evicted
    }
}

extension LRUCache._Node: Sendable where Key: Sendable, Value: Sendable {}
