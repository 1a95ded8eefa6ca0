import Testing

@testable import TileCache

@Suite struct LRUCacheTests {
    /// A cache of `String` values whose keys are their own costs' labels, checked after every step.
    func filled(budget: Int, _ entries: [(String, Int)]) -> LRUCache<String, String> {
        var cache = LRUCache<String, String>(budget: budget)
        for (key, cost) in entries {
            cache.insert(key.uppercased(), for: key, cost: cost)
            cache._checkInvariants()
        }
        return cache
    }

    func keys(_ cache: LRUCache<String, String>) -> [String] {
        cache.map(\.key)
    }

    @Test func emptyCacheMissesAndHoldsNothing() {
        var cache = LRUCache<String, Int>(budget: 100)
        #expect(cache.isEmpty && cache.count == 0 && cache.totalCost == 0 && cache.budget == 100)
        #expect(cache.value(for: "a") == nil)
        #expect(cache.peek("a") == nil && !cache.contains("a"))
        #expect(cache.hits == 0 && cache.misses == 1)
        #expect(Array(cache).isEmpty)
        cache._checkInvariants()
    }

    @Test func insertedValuesAreFoundAndCosted() {
        var cache = filled(budget: 100, [("a", 10), ("b", 20), ("c", 30)])
        #expect(cache.count == 3 && cache.totalCost == 60 && cache.insertions == 3)
        #expect(cache.value(for: "b") == "B" && cache.value(for: "z") == nil)
        #expect(cache.hits == 1 && cache.misses == 1 && cache.evictions == 0)
        #expect(cache.statistics == CacheStatistics(hits: 1, misses: 1, evictions: 0, insertions: 3, entries: 3, bytes: 60, budget: 100))
    }

    @Test func evictsTheLeastRecentlyUsedFirst() {
        var cache = filled(budget: 3, [("a", 1), ("b", 1), ("c", 1)])
        #expect(keys(cache) == ["c", "b", "a"])
        #expect(cache.value(for: "a") == "A")
        let evicted = cache.insert("D", for: "d", cost: 1)
        cache._checkInvariants()
        #expect(evicted.map(\.key) == ["b"] && evicted.map(\.value) == ["B"])
        #expect(keys(cache) == ["d", "a", "c"])
        #expect(cache.evictions == 1)
    }

    @Test func oneInsertEvictsAsManyAsNeeded() {
        var cache = filled(budget: 10, [("a", 3), ("b", 3), ("c", 3)])
        let evicted = cache.insert("D", for: "d", cost: 7)
        cache._checkInvariants()
        #expect(evicted.map(\.key) == ["a", "b"])
        #expect(keys(cache) == ["d", "c"] && cache.totalCost == 10 && cache.evictions == 2)
    }

    @Test func peekAndContainsLeaveRecencyAndCountersAlone() {
        var cache = filled(budget: 2, [("a", 1), ("b", 1)])
        #expect(cache.peek("a") == "A" && cache.contains("a"))
        #expect(cache.hits == 0 && cache.misses == 0)
        cache.insert("C", for: "c", cost: 1)
        #expect(keys(cache) == ["c", "b"])
    }

    @Test func replacingAnEntryUpdatesValueAndCostAndPromotesIt() {
        var cache = filled(budget: 10, [("a", 2), ("b", 2), ("c", 2)])
        let evicted = cache.insert("A2", for: "a", cost: 5)
        cache._checkInvariants()
        #expect(evicted.isEmpty)
        #expect(keys(cache) == ["a", "c", "b"] && cache.peek("a") == "A2")
        #expect(cache.totalCost == 9 && cache.count == 3 && cache.insertions == 4)
        #expect(cache.insert("A3", for: "a", cost: 9).map(\.key) == ["b", "c"])
        #expect(keys(cache) == ["a"] && cache.totalCost == 9)
    }

    @Test func anEntryLargerThanTheBudgetIsNotStored() {
        var cache = filled(budget: 10, [("a", 4), ("b", 4)])
        #expect(cache.insert("BIG", for: "big", cost: 11).isEmpty)
        cache._checkInvariants()
        #expect(!cache.contains("big") && keys(cache) == ["b", "a"] && cache.insertions == 2 && cache.evictions == 0)
        // A stale value must not survive an oversize replacement.
        #expect(cache.insert("A2", for: "a", cost: 11).isEmpty)
        cache._checkInvariants()
        #expect(keys(cache) == ["b"] && cache.totalCost == 4)
        // Exactly the budget fits, evicting everything else.
        #expect(cache.insert("FULL", for: "full", cost: 10).map(\.key) == ["b"])
        #expect(keys(cache) == ["full"] && cache.totalCost == 10)
    }

    @Test func zeroBudgetStoresOnlyFreeEntries() {
        let cache = filled(budget: 0, [("a", 1), ("free", 0)])
        #expect(keys(cache) == ["free"] && cache.totalCost == 0)
    }

    @Test func touchPutsTheFirstKeyInFrontAndKeepsTheGivenOrder() {
        var cache = filled(budget: 6, [("a", 1), ("b", 1), ("c", 1), ("d", 1), ("e", 1), ("f", 1)])
        #expect(keys(cache) == ["f", "e", "d", "c", "b", "a"])
        #expect(cache.touch(["b", "missing", "d", "a"]) == 3)
        cache._checkInvariants()
        #expect(keys(cache) == ["b", "d", "a", "f", "e", "c"])
        #expect(cache.hits == 0 && cache.misses == 0)
        // The untouched entries go first; the first touched key goes last.
        let evicted = cache.insert("X", for: "x", cost: 6)
        #expect(evicted.map(\.key) == ["c", "e", "f", "a", "d", "b"])
    }

    @Test func touchKeepsTheFirstOccurrenceOfARepeatedKey() {
        var cache = filled(budget: 5, [("a", 1), ("b", 1), ("c", 1), ("d", 1), ("e", 1)])
        #expect(cache.touch(["a", "b", "c", "b", "a", "d", "d"]) == 4)
        cache._checkInvariants()
        #expect(keys(cache) == ["a", "b", "c", "d", "e"])
        #expect(cache.touch(["e"]) == 1 && keys(cache) == ["e", "a", "b", "c", "d"])
        #expect(cache.touch([String]()) == 0 && keys(cache) == ["e", "a", "b", "c", "d"])
    }

    @Test func shrinkingTheBudgetEvictsTheLeastRecentlyUsed() {
        var cache = filled(budget: 10, [("a", 3), ("b", 3), ("c", 3)])
        _ = cache.value(for: "a")
        cache.budget = 20
        #expect(cache.count == 3 && cache.evictions == 0)
        #expect(cache.setBudget(5).map(\.key) == ["b", "c"])
        cache._checkInvariants()
        #expect(keys(cache) == ["a"] && cache.budget == 5 && cache.evictions == 2)
        cache.budget = 0
        cache._checkInvariants()
        #expect(cache.isEmpty && cache.evictions == 3)
    }

    @Test func removeValueRemovesOnlyThatEntry() {
        var cache = filled(budget: 10, [("a", 1), ("b", 2), ("c", 3)])
        #expect(cache.removeValue(for: "b") == "B" && cache.removeValue(for: "b") == nil)
        cache._checkInvariants()
        #expect(keys(cache) == ["c", "a"] && cache.totalCost == 4 && cache.evictions == 0)
    }

    @Test func removeAllWhereKeepsTheOthersInOrder() {
        var cache = filled(budget: 100, [("img1/a", 1), ("img2/a", 2), ("img1/b", 3), ("img2/b", 4)])
        #expect(cache.removeAll { key, _ in key.hasPrefix("img1/") } == 2)
        cache._checkInvariants()
        #expect(keys(cache) == ["img2/b", "img2/a"] && cache.totalCost == 6)
        struct Stop: Error {}
        #expect(throws: Stop.self) { try cache.removeAll { _, _ in throw Stop() } }
        cache._checkInvariants()
        #expect(cache.count == 2)
    }

    @Test func removeAllEmptiesButKeepsBudgetAndCounters() {
        var cache = filled(budget: 3, [("a", 1), ("b", 1), ("c", 1), ("d", 1)])
        cache.removeAll()
        cache._checkInvariants()
        #expect(cache.isEmpty && cache.totalCost == 0 && cache.budget == 3 && cache.insertions == 4 && cache.evictions == 1)
        cache.insert("E", for: "e", cost: 1)
        #expect(keys(cache) == ["e"])
    }

    @Test func vacatedSlotsAreReused() {
        var cache = LRUCache<Int, Int>(budget: 10)
        for key in 0..<1_000 {
            cache.insert(key, for: key, cost: 1)
            if key % 3 == 2 { cache.removeValue(for: key - 1) }
        }
        cache._checkInvariants()
        #expect(cache.count == 10 && cache.evictions == 1_000 - 333 - 10)
        // Never more slots than the budget allows entries, plus the sentinel.
        #expect(cache._nodes.count == 11)
    }

    @Test func copiesAreIndependent() {
        var original = filled(budget: 10, [("a", 1), ("b", 1)])
        var copy = original
        copy.insert("C", for: "c", cost: 1)
        _ = copy.value(for: "a")
        #expect(keys(original) == ["b", "a"] && keys(copy) == ["a", "c", "b"])
        original.removeAll()
        #expect(copy.count == 3)
        copy._checkInvariants()
    }

    @Test func negativeCostIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            var cache = LRUCache<Int, Int>(budget: 10)
            cache.insert(1, for: 1, cost: -1)
        }
    }
}
