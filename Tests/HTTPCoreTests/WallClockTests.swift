import Glibc
import Testing

@testable import HTTPCore

/// The wall clock's seconds, read across the turn of a second.
@Suite struct WallClockTests {
    /// Read right after a precise reading, it never shows an earlier second — which the kernel's coarse clock
    /// (`time(nil)`) does for a tick after each turn.
    @Test func itIsNeverBehindAPreciseReadingTakenBeforeIt() {
        var start = timespec()
        clock_gettime(CLOCK_REALTIME, &start)
        var before = timespec()
        var readings = 0
        repeat {
            clock_gettime(CLOCK_REALTIME, &before)
            let seconds = WallClock.seconds()
            readings += 1
            guard seconds >= before.tv_sec else {
                Issue.record("second \(seconds) read after \(before.tv_sec).\(before.tv_nsec)")
                return
            }
        } while before.tv_sec < start.tv_sec + 1 || before.tv_nsec < 10_000_000
        #expect(readings > 1000)
    }
}
