/// A deliberately naive model of a byte-budget LRU cache, written from the specification and not from
/// `LRUCache`: one array ordered from the most to the least recently used entry, linear scans everywhere.
struct ReferenceLRU {
    typealias Entry = (key: Int, value: Int, cost: Int)

    /// Most recently used first.
    var entries: [Entry] = []
    var budget: Int
    var hits = 0
    var misses = 0
    var evictions = 0
    var insertions = 0

    var totalCost: Int { entries.reduce(0) { $0 + $1.cost } }

    mutating func value(for key: Int) -> Int? {
        guard let index = entries.firstIndex(where: { $0.key == key }) else {
            misses += 1
            return nil
        }
        hits += 1
        let entry = entries.remove(at: index)
        entries.insert(entry, at: 0)
        return entry.value
    }

    func peek(_ key: Int) -> Int? {
        entries.first { $0.key == key }?.value
    }

    /// Returns the evicted keys, least recently used first.
    mutating func insert(_ value: Int, for key: Int, cost: Int) -> [Int] {
        entries.removeAll { $0.key == key }
        guard cost <= budget else { return [] }
        entries.insert((key, value, cost), at: 0)
        insertions += 1
        return evictOverBudget()
    }

    /// The touched entries (first occurrences of present keys, in the given order) move to the front.
    mutating func touch(_ keys: [Int]) -> Int {
        var touched: [Entry] = []
        for key in keys where !touched.contains(where: { $0.key == key }) {
            if let entry = entries.first(where: { $0.key == key }) {
                touched.append(entry)
            }
        }
        let rest = entries.filter { entry in !touched.contains { $0.key == entry.key } }
        entries = touched + rest
        return touched.count
    }

    mutating func removeValue(for key: Int) -> Int? {
        guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
        return entries.remove(at: index).value
    }

    mutating func removeAll(where shouldBeRemoved: (Int, Int) -> Bool) -> Int {
        let before = entries.count
        entries.removeAll { shouldBeRemoved($0.key, $0.value) }
        return before - entries.count
    }

    mutating func setBudget(_ newBudget: Int) -> [Int] {
        budget = newBudget
        return evictOverBudget()
    }

    private mutating func evictOverBudget() -> [Int] {
        var evicted: [Int] = []
        while totalCost > budget {
            evicted.append(entries.removeLast().key)
            evictions += 1
        }
        return evicted
    }
}
