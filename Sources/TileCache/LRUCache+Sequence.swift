extension LRUCache: Sequence {
    /// Visits the entries from the most to the least recently used, without changing their recency.
    public struct Iterator: IteratorProtocol {
        @usableFromInline let _nodes: [_Node]
        @usableFromInline var _slot: Int

        @inlinable
        init(_ nodes: [_Node]) {
            _nodes = nodes
            _slot = nodes[0].next
        }

        /// The next less recently used entry, or `nil` after the least recently used one.
        @inlinable
        public mutating func next() -> Element? {
            guard _slot != 0 else { return nil }
            let node = _nodes[_slot]
            _slot = node.next
            return (node.key!, node.value!)
        }
    }

    /// An iterator over a snapshot of the entries, most recently used first. O(1).
    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(_nodes)
    }

    /// The number of entries. O(1).
    @inlinable
    public var underestimatedCount: Int { count }
}
