import NIOCore
import Testing

@testable import ObjectStore

/// The breaker of a store that stopped answering, on a manual clock: closed until three unanswered requests in a row,
/// then requests refused for a pause that doubles with each failed probe up to its longest; one probe at a time; any
/// answer closes it.
@Suite struct StoreBreakerTests {
    let start = NIODeadline.uptimeNanoseconds(1_000_000_000)

    @Test func threeUnansweredRequestsPauseTheStore() {
        var breaker = StoreBreaker(threshold: 3, firstPause: .milliseconds(500), longestPause: .seconds(5))
        for _ in 0..<2 {
            #expect(breaker.admit(now: start) == .send)
            breaker.record(answered: false, now: start)
        }
        // An answer between them starts the count again.
        breaker.record(answered: true, now: start)
        for _ in 0..<3 { breaker.record(answered: false, now: start) }
        #expect(breaker.admit(now: start + .milliseconds(100)) == .refuse(remaining: .milliseconds(400)))
        #expect(breaker.isPaused(now: start + .milliseconds(499)) && !breaker.isPaused(now: start + .milliseconds(500)))
    }

    @Test func oneProbeAtATimeAndAnyAnswerCloses() {
        var breaker = StoreBreaker(threshold: 1, firstPause: .seconds(1), longestPause: .seconds(5))
        breaker.record(answered: false, now: start)
        let later = start + .seconds(1)
        #expect(breaker.admit(now: later) == .probe)
        #expect(breaker.admit(now: later) == .refuse(remaining: .seconds(1)), "the others wait for the probe")
        breaker.record(answered: true, now: later)
        #expect(breaker.admit(now: later) == .send && !breaker.isPaused(now: later))
    }

    @Test func eachFailedProbeDoublesThePauseUpToTheLongest() {
        var breaker = StoreBreaker(threshold: 1, firstPause: .seconds(1), longestPause: .seconds(5))
        var now = start
        var pauses: [Int64] = []
        breaker.record(answered: false, now: now)
        for _ in 0..<5 {
            guard case .refuse(let remaining) = breaker.admit(now: now) else {
                Issue.record("paused after a failure")
                return
            }
            pauses.append(remaining.nanoseconds / 1_000_000_000)
            now = now + remaining
            #expect(breaker.admit(now: now) == .probe)
            breaker.record(answered: false, now: now)
        }
        #expect(pauses == [1, 2, 4, 5, 5])
    }
}
