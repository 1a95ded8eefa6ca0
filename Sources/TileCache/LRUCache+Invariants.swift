extension LRUCache {
    /// Checks the internal structure with `precondition`s: a testing hook, in the manner of swift-collections.
    ///
    /// Walks the recency list both ways and the free list, and checks that they account for every slot once,
    /// that the map points each key at its slot, that the costs add up to ``totalCost`` and that ``totalCost``
    /// fits ``budget``. O(n).
    public func _checkInvariants() {
        precondition(_nodes[0].key == nil && _nodes[0].value == nil && _nodes[0].cost == 0, "slot 0 is not a sentinel")
        precondition(_budget >= 0 && _totalCost >= 0 && _totalCost <= _budget, "total cost \(_totalCost) outside 0...\(_budget)")
        precondition(_hits >= 0 && _misses >= 0 && _evictions >= 0 && _insertions >= 0, "negative counter")
        var linked = 0
        var cost = 0
        var slot = _nodes[0].next
        var previous = 0
        while slot != 0 {
            precondition(linked < _slots.count, "the recency list is longer than the map (a cycle?)")
            let node = _nodes[slot]
            precondition(node.previous == previous, "slot \(slot): backward link \(node.previous), expected \(previous)")
            guard let key = node.key else { preconditionFailure("slot \(slot) is linked but vacated") }
            precondition(node.value != nil, "slot \(slot) has a key but no value")
            precondition(_slots[key] == slot, "the map does not point the key of slot \(slot) at it")
            precondition(node.cost >= 0, "slot \(slot) has a negative cost")
            linked += 1
            cost += node.cost
            previous = slot
            slot = node.next
        }
        precondition(_nodes[0].previous == previous, "the sentinel's backward link is not the last entry")
        precondition(linked == _slots.count, "the list holds \(linked) entries, the map \(_slots.count)")
        precondition(cost == _totalCost, "costs add up to \(cost), total cost says \(_totalCost)")
        _checkFreeList(vacated: _nodes.count - 1 - linked)
    }

    /// Checks that the free list holds exactly `vacated` empty slots.
    func _checkFreeList(vacated: Int) {
        var free = 0
        var slot = _freeHead
        while slot >= 0 {
            precondition(free < vacated, "the free list is longer than the vacated slots (a cycle?)")
            let node = _nodes[slot]
            precondition(node.key == nil && node.value == nil && node.cost == 0, "free slot \(slot) holds an entry")
            free += 1
            slot = node.next
        }
        precondition(free == vacated, "the free list holds \(free) slots, \(vacated) are vacated")
    }
}
