import Testing

@testable import Archive

/// The frontier of a file written at reserved offsets: it passes a write only once every write before it is done,
/// whatever order they finish in; writes of nothing never hold it.
@Suite struct WriteFrontierTests {
    @Test func theFrontierWaitsForTheFirstUnfinishedWrite() {
        var frontier = WriteFrontier()
        let offsets = [10, 20, 5, 0, 30].map { frontier.reserve(UInt64($0)) }
        #expect(offsets == [0, 10, 30, 35, 35] && frontier.end == 65)
        #expect(frontier.frontier == 0)
        #expect(frontier.finished(at: 10) == nil, "the write at 0 is not done")
        #expect(frontier.finished(at: 30) == nil)
        #expect(frontier.finished(at: 0) == 35, "passes 0, 10 and 30 at once; the empty write never held it")
        #expect(frontier.finished(at: 35) == 65 && frontier.frontier == frontier.end)
        #expect(frontier.finished(at: 35) == nil, "a write finishes once")
    }

    @Test func manyWritesFinishedInAnyOrderEndAtTheEnd() {
        var frontier = WriteFrontier()
        var offsets = (0..<5000).map { _ in frontier.reserve(3) }
        offsets.reverse()
        var last: UInt64 = 0
        for (index, offset) in offsets.enumerated() {
            if let moved = frontier.finished(at: offset) {
                #expect(moved > last)
                last = moved
            }
            if index == offsets.count - 2 { #expect(frontier.frontier == 0) }
        }
        #expect(last == 15_000 && frontier.frontier == 15_000)
    }

    @Test func withoutTrackingTheFrontierIsTheEnd() {
        var frontier = WriteFrontier(tracking: false)
        #expect(frontier.reserve(8) == 0 && frontier.reserve(8) == 8)
        #expect(frontier.frontier == 16 && frontier.finished(at: 0) == nil)
    }
}
