import TestSupport
import Testing
import TileCache

/// Random workloads run against ``LRUCache`` and ``ReferenceLRU`` side by side: every result, the exact
/// recency order, the costs and the counters must agree after every operation.
@Suite struct LRUCacheModelTests {
    /// One workload's shape: how many distinct keys, the starting budget and the largest ordinary cost.
    struct Workload: Sendable, CustomTestStringConvertible {
        var seed: UInt64
        var keySpace: Int
        var budget: Int
        var maxCost: Int
        var testDescription: String { "seed \(seed), \(keySpace) keys, budget \(budget), costs ≤ \(maxCost)" }
    }

    static let workloads = [
        Workload(seed: 1, keySpace: 12, budget: 40, maxCost: 10),
        Workload(seed: 2, keySpace: 48, budget: 300, maxCost: 40),
        Workload(seed: 3, keySpace: 48, budget: 300, maxCost: 40),
        Workload(seed: 4, keySpace: 400, budget: 2_000, maxCost: 30),
        Workload(seed: 5, keySpace: 40, budget: 1_000, maxCost: 300),
    ]

    @Test(arguments: workloads)
    func agreesWithTheReferenceModel(_ workload: Workload) {
        var rng = SplitMix64(seed: workload.seed)
        var cache = LRUCache<Int, Int>(budget: workload.budget)
        var model = ReferenceLRU(budget: workload.budget)
        for step in 0..<4_000 {
            let operation = Int.random(in: 0..<100, using: &rng)
            apply(operation, workload, &cache, &model, &rng, step: step)
            cache._checkInvariants()
            #expect(cache.map { [$0.key, $0.value] } == model.entries.map { [$0.key, $0.value] }, "order after step \(step)")
            #expect(cache.totalCost == model.totalCost && cache.count == model.entries.count && cache.totalCost <= cache.budget)
            #expect(cache.budget == model.budget)
            #expect(
                [cache.hits, cache.misses, cache.evictions, cache.insertions]
                    == [model.hits, model.misses, model.evictions, model.insertions])
        }
        // The workload must have exercised what it claims to.
        #expect(model.evictions > 100 && model.hits > 100 && model.misses > 100)
    }

    func apply(
        _ operation: Int, _ workload: Workload, _ cache: inout LRUCache<Int, Int>, _ model: inout ReferenceLRU,
        _ rng: inout SplitMix64, step: Int
    ) {
        let key = randomKey(workload, &rng)
        switch operation {
        case 0..<40:
            #expect(cache.value(for: key) == model.value(for: key))
        case 40..<45:
            #expect(cache.peek(key) == model.peek(key) && cache.contains(key) == (model.peek(key) != nil))
        case 45..<77:
            let cost = randomCost(workload, budget: model.budget, &rng)
            #expect(cache.insert(step, for: key, cost: cost).map(\.key) == model.insert(step, for: key, cost: cost))
        case 77..<89:
            let keys = (0..<Int.random(in: 0...12, using: &rng)).map { _ in randomKey(workload, &rng) }
            #expect(cache.touch(keys) == model.touch(keys))
        case 89..<95:
            #expect(cache.removeValue(for: key) == model.removeValue(for: key))
        case 95..<97:
            let modulus = Int.random(in: 2...9, using: &rng)
            let shouldBeRemoved = { (key: Int, value: Int) in (key + value) % modulus == 0 }
            #expect(cache.removeAll(where: shouldBeRemoved) == model.removeAll(where: shouldBeRemoved))
        default:
            let budget = Int.random(in: 0..<10, using: &rng) == 0 ? 0 : Int.random(in: workload.budget / 2...workload.budget * 3 / 2, using: &rng)
            #expect(cache.setBudget(budget).map(\.key) == model.setBudget(budget))
        }
    }

    /// Keys skewed towards 0, as real workloads revisit some keys more than others.
    func randomKey(_ workload: Workload, _ rng: inout SplitMix64) -> Int {
        min(Int.random(in: 0..<workload.keySpace, using: &rng), Int.random(in: 0..<workload.keySpace, using: &rng))
    }

    /// Mostly ordinary costs, some free entries, some larger than the whole (current) budget.
    func randomCost(_ workload: Workload, budget: Int, _ rng: inout SplitMix64) -> Int {
        switch Int.random(in: 0..<20, using: &rng) {
        case 0: 0
        case 1: budget + Int.random(in: 1...10, using: &rng)
        default: Int.random(in: 1...workload.maxCost, using: &rng)
        }
    }
}
