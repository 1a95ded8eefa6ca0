extension Pyramid {
    /// A tile's sort key: its squared distance to the centre, then its row-major index in the block (row, then
    /// column, because the block is scanned row by row).
    struct OrderKey {
        var distance: Double
        var index: Int

        @inline(__always)
        static func precedes(_ a: OrderKey, _ b: OrderKey) -> Bool {
            a.distance < b.distance || (a.distance == b.distance && a.index < b.index)
        }
    }

    /// The tiles `columns` × `rows` of `level` in fetch order: ascending squared distance from the frame centre to
    /// `centre`, ties by row, then column.
    ///
    /// - Complexity: expected O(n) (see ``sortByDistance(_:count:into:)``); one temporary allocation for the keys.
    func orderedTiles(level: Int, columns: ClosedRange<Int>, rows: ClosedRange<Int>, centreX: Double, centreY: Double) -> [VisibleTile] {
        let width = columns.count
        let count = width * rows.count
        let keys = UnsafeMutablePointer<OrderKey>.allocate(capacity: 2 * count)
        defer { keys.deallocate() }
        var index = 0
        for row in rows.lowerBound..<(rows.upperBound + 1) {
            let dy = frameMid(row, extent: height, level: level) - centreY
            for column in columns.lowerBound..<(columns.upperBound + 1) {
                let dx = frameMid(column, extent: self.width, level: level) - centreX
                (keys + index).initialize(to: OrderKey(distance: dx * dx + dy * dy, index: index))
                index += 1
            }
        }
        let sorted = keys + count
        Self.sortByDistance(keys, count: count, into: sorted)
        return [VisibleTile](unsafeUninitializedCapacity: count) { tiles, initialized in
            for slot in 0..<count {
                let key = sorted[slot]
                let column = columns.lowerBound + key.index % width
                let row = rows.lowerBound + key.index / width
                let frame = tileFrame(level: level, column: column, row: row)
                tiles.initializeElement(at: slot, to: VisibleTile(level: level, column: column, row: row, frame: frame))
            }
            initialized = count
        }
    }

    /// Writes the `count` keys at `keys` (in ascending `index` order) to `sorted`, ordered by
    /// ``OrderKey/precedes(_:_:)``.
    ///
    /// A bucket sort: the distances of a tile block around its centre spread fairly evenly over `0 … max`, so
    /// `2 · count` equal-width buckets hold few keys each. Bucket numbers never decrease with distance and
    /// scattering is stable, so the keys are out of order only within a bucket; one insertion-sort pass then makes
    /// the order exact — the same result as a comparison sort. Should a bucket hold more than 32 keys, the standard
    /// library sorts instead, keeping the worst case O(n log n).
    static func sortByDistance(_ keys: UnsafeMutablePointer<OrderKey>, count: Int, into sorted: UnsafeMutablePointer<OrderKey>) {
        var largest = 0.0
        for i in 0..<count { largest = max(largest, keys[i].distance) }
        guard count > 8, largest > 0 else {
            sorted.initialize(from: keys, count: count)
            insertionSort(sorted, count: count)
            return
        }
        let buckets = 2 * count
        let scale = Double(buckets - 1) / largest
        let ends = UnsafeMutablePointer<Int>.allocate(capacity: buckets + 1)
        defer { ends.deallocate() }
        ends.initialize(repeating: 0, count: buckets + 1)
        for i in 0..<count { ends[min(Int(keys[i].distance * scale), buckets - 1) + 1] += 1 }
        var fullest = 0
        for bucket in 1..<(buckets + 1) {
            fullest = max(fullest, ends[bucket])
            ends[bucket] += ends[bucket - 1]
        }
        // Scattering moves each bucket's start up to its end.
        for i in 0..<count {
            let bucket = min(Int(keys[i].distance * scale), buckets - 1)
            (sorted + ends[bucket]).initialize(to: keys[i])
            ends[bucket] += 1
        }
        if fullest <= 32 {
            insertionSort(sorted, count: count)
        } else {
            var all = UnsafeMutableBufferPointer(start: sorted, count: count)
            all.sort(by: OrderKey.precedes)
        }
    }

    /// Sorts `base[0 ..< count]` in place by ``OrderKey/precedes(_:_:)``; fast when nearly sorted.
    private static func insertionSort(_ base: UnsafeMutablePointer<OrderKey>, count: Int) {
        var i = 1
        while i < count {
            let key = base[i]
            if OrderKey.precedes(key, base[i - 1]) {
                var j = i
                repeat {
                    base[j] = base[j - 1]
                    j -= 1
                } while j > 0 && OrderKey.precedes(key, base[j - 1])
                base[j] = key
            }
            i += 1
        }
    }

    /// The centre of tile `index`'s frame along an axis of `extent` image pixels: `x + width / 2`, exact.
    @inline(__always)
    private func frameMid(_ index: Int, extent: Int, level: Int) -> Double {
        let span = tileSize << (maxLevel - level)
        let start = index * span
        return Double(start) + Double(min(start + span, extent) - start) / 2
    }
}
