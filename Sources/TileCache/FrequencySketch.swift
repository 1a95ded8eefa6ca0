/// An estimate of how often each key was seen recently: a count-min sketch of 4-bit counters that halves every
/// counter after a sample of additions, so old popularity fades (TinyLFU, Einziger, Friedman and Manes, 2017).
///
/// ``ConcurrentLRUCache`` uses it to decide whether a newcomer is worth evicting the least recently used entry
/// for: under a scan or uniformly random requests over more than the cache holds, admitting every miss only
/// churns the cache, while a tile many clients ask for wins its place.
///
/// Memory: one 64-bit word (16 counters) per expected entry, rounded up to a power of two, at least 64 words.
/// Estimates never fall below the true count of the current sample (capped at 15); collisions only raise them.
public struct FrequencySketch<Key: Hashable> {
    /// 16 counters of 4 bits per word.
    @usableFromInline var _table: [UInt64]
    @usableFromInline let _mask: Int
    @usableFromInline var _additions: Int
    /// After this many additions every counter is halved.
    @usableFromInline let _sampleSize: Int

    /// Creates a sketch sized for a cache of about `expectedEntries` entries; counters are halved after ten times
    /// that many additions.
    ///
    /// - Complexity: O(`expectedEntries`).
    public init(expectedEntries: Int) {
        let entries = max(64, expectedEntries)
        var words = 64
        while words < entries { words <<= 1 }
        _table = Array(repeating: 0, count: words)
        _mask = words - 1
        _additions = 0
        _sampleSize = 10 * entries
    }

    /// How often `key` was seen in the current sample (0…15, an overestimate under collisions).
    ///
    /// - Complexity: O(1).
    @inlinable
    public func frequency(_ key: Key) -> Int {
        _frequency(hash: Self._hash(key))
    }

    /// `key`'s ``SketchHashable/sketchHash`` if it has one, else its `hashValue`. (The cast is resolved when the
    /// sketch is specialised for a key type.)
    @inlinable
    static func _hash(_ key: Key) -> UInt64 {
        if let key = key as? any SketchHashable { return key.sketchHash }
        return UInt64(bitPattern: Int64(key.hashValue))
    }

    /// ``frequency(_:)`` of the key whose hash value is `hash`.
    @inlinable
    func _frequency(hash: UInt64) -> Int {
        var smallest = 15
        for row in 0..<4 {
            let (word, shift) = _position(hash, row: row)
            smallest = min(smallest, Int((_table[word] >> shift) & 15))
        }
        return smallest
    }

    /// Records one sighting of `key`: raises those of its four counters that hold the minimum (a conservative
    /// update, which keeps collisions from inflating estimates), and ages the sketch when the sample is full.
    ///
    /// - Complexity: O(1) amortised (ageing is O(table) once per sample).
    @inlinable
    public mutating func increment(_ key: Key) {
        let hash = Self._hash(key)
        let current = _frequency(hash: hash)
        guard current < 15 else { return }
        for row in 0..<4 {
            let (word, shift) = _position(hash, row: row)
            if Int((_table[word] >> shift) & 15) == current {
                _table[word] += 1 << shift
            }
        }
        _additions += 1
        if _additions >= _sampleSize {
            _age()
        }
    }

    /// Halves every counter and the addition count.
    @usableFromInline
    mutating func _age() {
        for index in _table.indices {
            _table[index] = (_table[index] >> 1) & 0x7777_7777_7777_7777
        }
        _additions /= 2
    }

    /// Row `row`'s counter for `hash`: a word index and the counter's bit offset in it.
    @inlinable
    func _position(_ hash: UInt64, row: Int) -> (word: Int, shift: UInt64) {
        var mixed = (hash ^ (0x9E37_79B9_7F4A_7C15 &* UInt64(row + 1))) &* 0xBF58_476D_1CE4_E5B9
        mixed ^= mixed >> 31
        return (Int(truncatingIfNeeded: mixed >> 8) & _mask, (mixed & 15) << 2)
    }
}

extension FrequencySketch: Sendable {}

/// A key with a cheap, well-mixed 64-bit hash of its own, which ``FrequencySketch`` uses instead of `hashValue`
/// (a seeded SipHash: about 150 instructions, paid on every cache lookup). The sketch mixes the hash again for
/// each of its rows, so it only has to spread the key's fields over the bits; it is not seeded, so keys an attacker
/// chooses could share counters — which can only make the admission of their own tiles likelier, as asking for
/// them more often would.
public protocol SketchHashable {
    /// A hash of the key, the same for equal keys.
    var sketchHash: UInt64 { get }
}
