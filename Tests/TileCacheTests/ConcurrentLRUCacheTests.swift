import Dispatch
import TestSupport
import Testing

@testable import TileCache

@Suite struct ConcurrentLRUCacheTests {
    @Test func behavesLikeTheWrappedCache() {
        let cache = ConcurrentLRUCache<String, Int>(budget: 10)
        #expect(cache.insert(1, for: "a", cost: 4) == 0)
        #expect(cache.insert(2, for: "b", cost: 4) == 0)
        #expect(cache.value(for: "a") == 1 && cache.value(for: "z") == nil)
        #expect(cache.insert(3, for: "c", cost: 4) == 1)
        #expect(!cache.contains("b") && cache.peek("a") == 1)
        #expect(cache.touch(["c", "a", "missing"]) == 2)
        #expect(cache.insert(4, for: "d", cost: 4) == 1 && !cache.contains("a") && cache.contains("c"))
        #expect(cache.insert(5, for: "big", cost: 11) == 0 && !cache.contains("big"))
        #expect(cache.removeValue(for: "c") == 3 && cache.count == 1 && cache.totalCost == 4)
        cache.budget = 3
        #expect(cache.count == 0 && cache.budget == 3)
        #expect(cache.statistics == CacheStatistics(hits: 1, misses: 1, evictions: 3, insertions: 4, entries: 0, bytes: 0, budget: 3))
        cache._checkInvariants()
    }

    @Test func removeAllWhereRunsThePredicateOnKeysAndStopsOnError() {
        let cache = ConcurrentLRUCache<String, Int>(budget: 100)
        for (index, key) in ["img1/a", "img2/a", "img1/b", "img2/b"].enumerated() {
            cache.insert(index, for: key, cost: 1)
        }
        struct Stop: Error {}
        #expect(throws: Stop.self) { try cache.removeAll { _ in throw Stop() } }
        #expect(cache.count == 4)
        #expect(cache.removeAll { $0.hasPrefix("img1/") } == 2)
        #expect(cache.contains("img2/a") && cache.contains("img2/b") && cache.count == 2)
        cache.removeAll()
        #expect(cache.count == 0 && cache.statistics.insertions == 4)
        cache._checkInvariants()
    }

    /// Records whether the lock was free each time a value was released.
    final class Probe: Sendable {
        let onRelease: @Sendable () -> Void
        init(onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    @Test func valuesAreReleasedOutsideTheLock() {
        let cache = ConcurrentLRUCache<Int, Probe>(budget: 2)
        let lockWasFree = Locked<[Bool]>([])
        func probe() -> Probe {
            Probe { lockWasFree.withLock { $0.append(cache._state.withLockIfAvailable { _ in true } ?? false) } }
        }
        cache.insert(probe(), for: 1, cost: 1)
        cache.insert(probe(), for: 2, cost: 1)
        cache.insert(probe(), for: 3, cost: 1)  // evicts 1
        cache.insert(probe(), for: 3, cost: 1)  // replaces 3
        cache.insert(probe(), for: 2, cost: 5)  // oversize: removes 2, drops the new value
        cache.removeValue(for: 3)
        cache.insert(probe(), for: 4, cost: 1)
        cache.insert(probe(), for: 5, cost: 1)
        _ = cache.removeAll { $0 == 4 }
        cache.budget = 0
        cache.insert(probe(), for: 6, cost: 0)
        cache.removeAll()
        #expect(lockWasFree.value == Array(repeating: true, count: 8))
    }

    /// Per-thread tallies of what the cache should have counted.
    struct Tally: Sendable {
        var hits = 0
        var misses = 0
        var insertions = 0
        var removals = 0
        var wrongValues = 0
    }

    @Test func manyThreadsKeepTheStructureAndTheCountsConsistent() {
        let threads = 8
        let operations = 3_000
        let cache = ConcurrentLRUCache<Int, Int>(budget: 4_000)
        let tallies = Locked<[Tally]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            let tally = runWorkload(on: cache, thread: thread, threads: threads, operations: operations)
            tallies.withLock { $0.append(tally) }
        }
        cache._checkInvariants()
        let total = tallies.value.reduce(into: Tally()) {
            $0.hits += $1.hits
            $0.misses += $1.misses
            $0.insertions += $1.insertions
            $0.removals += $1.removals
            $0.wrongValues += $1.wrongValues
        }
        let statistics = cache.statistics
        #expect(total.wrongValues == 0)
        #expect(statistics.hits == total.hits && statistics.misses == total.misses && statistics.insertions == total.insertions)
        // Every key is inserted once, so each stored entry leaves by eviction or removal, or is still there.
        #expect(statistics.entries == statistics.insertions - statistics.evictions - total.removals)
        #expect(statistics.bytes <= statistics.budget && statistics.bytes == cache.totalCost)
        #expect(statistics.evictions > 0 && statistics.hits > 0 && statistics.misses > 0 && total.removals > 0)
    }

    /// One thread's share: inserts keys no other thread inserts (`thread * 1_000_000 + n`, value `3 × key`),
    /// looks up, touches and removes keys of every thread.
    func runWorkload(on cache: ConcurrentLRUCache<Int, Int>, thread: Int, threads: Int, operations: Int) -> Tally {
        var rng = SplitMix64(seed: UInt64(thread + 1))
        var tally = Tally()
        var inserted = 0
        func someKey() -> Int {
            Int.random(in: 0..<threads, using: &rng) * 1_000_000 + Int.random(in: 0..<max(inserted, 1), using: &rng)
        }
        for operation in 0..<operations {
            switch Int.random(in: 0..<100, using: &rng) {
            case 0..<45:
                let key = someKey()
                if let value = cache.value(for: key) {
                    tally.hits += 1
                    tally.wrongValues += value == 3 * key ? 0 : 1
                } else {
                    tally.misses += 1
                }
            case 45..<80:
                let key = thread * 1_000_000 + inserted
                inserted += 1
                cache.insert(3 * key, for: key, cost: Int.random(in: 1...64, using: &rng))
                tally.insertions += 1
            case 80..<90:
                cache.touch((0..<8).map { _ in someKey() })
            case 90..<98:
                let key = someKey()
                if let value = cache.removeValue(for: key) {
                    tally.removals += 1
                    tally.wrongValues += value == 3 * key ? 0 : 1
                }
            case 98:
                tally.removals += cache.removeAll { $0 % 1_000_000 % 50 == thread }
            default:
                let key = someKey()
                tally.wrongValues += cache.peek(key).map { $0 == 3 * key ? 0 : 1 } ?? 0
            }
            if operation % 500 == 0 { cache._checkInvariants() }
        }
        return tally
    }
}

@Suite struct ConcurrentLRUCacheAdmissionTests {
    @Test func admitsWhileThereIsRoomThenOnlyKeysMorePopularThanTheVictim() {
        let cache = ConcurrentLRUCache<String, Int>(budget: 3, admission: .frequency(expectedEntries: 64))
        #expect(cache.admits("a", cost: 1))
        for key in ["a", "b", "c"] {
            _ = cache.value(for: key)
            cache.insert(0, for: key, cost: 1)
        }
        // Full: "d" would evict "a" (seen once), and was seen as often: refused.
        _ = cache.value(for: "d")
        #expect(!cache.admits("d", cost: 1))
        _ = cache.value(for: "d")
        #expect(cache.admits("d", cost: 1))
        // A popular least recently used entry keeps its place against a newcomer seen twice.
        for _ in 0..<5 { _ = cache.value(for: "a") }
        cache.touch(["b", "c"])
        #expect(!cache.admits("d", cost: 1))
        cache._checkInvariants()
    }

    @Test func theDefaultPolicyAdmitsWhateverFitsTheBudget() {
        let cache = ConcurrentLRUCache<String, Int>(budget: 1)
        cache.insert(0, for: "a", cost: 1)
        for _ in 0..<5 { _ = cache.value(for: "a") }
        #expect(cache.admits("b", cost: 1))
        #expect(!cache.admits("b", cost: 2))
        let weighing = ConcurrentLRUCache<String, Int>(budget: 0, admission: .frequency(expectedEntries: 8))
        #expect(!weighing.admits("b", cost: 1))
    }
}
