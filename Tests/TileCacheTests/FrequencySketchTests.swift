import Testing

@testable import TileCache

@Suite struct FrequencySketchTests {
    @Test func countsSightingsUpToFifteen() {
        var sketch = FrequencySketch<Int>(expectedEntries: 1000)
        #expect(sketch.frequency(7) == 0)
        for expected in 1...15 {
            sketch.increment(7)
            #expect(sketch.frequency(7) == expected)
        }
        sketch.increment(7)
        #expect(sketch.frequency(7) == 15)
    }

    @Test func keysAreCountedApartWhenTheSketchIsLargeEnough() {
        var sketch = FrequencySketch<Int>(expectedEntries: 4096)
        for key in 0..<1000 {
            for _ in 0..<(key % 4) { sketch.increment(key) }
        }
        // Count-min never underestimates; with 4 rows and room for 4096 entries, overestimates are rare.
        var exact = 0
        for key in 0..<1000 {
            let frequency = sketch.frequency(key)
            #expect(frequency >= key % 4)
            if frequency == key % 4 { exact += 1 }
        }
        #expect(exact >= 990)
    }

    @Test func halvesEveryCounterAfterASample() {
        var sketch = FrequencySketch<Int>(expectedEntries: 64)  // sample: 640 additions
        for _ in 0..<12 { sketch.increment(-1) }
        #expect(sketch.frequency(-1) == 12)
        // 628 more additions over other keys complete the sample.
        var key = 0
        while sketch._additions != 0 && sketch.frequency(-1) == 12 {
            sketch.increment(key % 300)
            key += 1
        }
        #expect(sketch.frequency(-1) == 6)
        #expect(key <= 640)
    }

    /// A key of its own hash: equal keys (`==`) are told apart by the sketch only through it.
    struct OwnHash: Hashable, SketchHashable {
        let id: Int
        let sketchHash: UInt64
    }

    @Test func keysWithTheirOwnHashAreCountedByIt() {
        var sketch = FrequencySketch<OwnHash>(expectedEntries: 4096)
        let (one, sameHash, other) = (OwnHash(id: 1, sketchHash: 42), OwnHash(id: 2, sketchHash: 42), OwnHash(id: 3, sketchHash: 7))
        for _ in 0..<3 { sketch.increment(one) }
        // Different keys, one sketch hash: one set of counters. (Their `hashValue`s differ, so `hashValue` is not used.)
        #expect(sketch.frequency(sameHash) == 3)
        #expect(sketch.frequency(other) == 0)
    }
}
