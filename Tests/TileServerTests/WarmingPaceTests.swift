import Glibc
import Testing

@testable import TileServer

@Suite struct WarmingPaceTests {
    private static func clock(_ id: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(id, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// A thread that only computes is held to its share: its wall time is at least its CPU time over the share,
    /// and `pace()` hands back the CPU time it used.
    @Test func aBusyThreadSleepsBackToItsShare() async throws {
        try await blocking {
            var pace = WarmingPace(share: 0.5, window: 1_000_000_000)
            let wallStart = Self.clock(CLOCK_MONOTONIC)
            var counted: Int64 = 0
            var sink = 0
            for _ in 0..<6 {
                let start = Self.clock(CLOCK_THREAD_CPUTIME_ID)
                while Self.clock(CLOCK_THREAD_CPUTIME_ID) - start < 4_000_000 { sink &+= 1 }
                counted += pace.pace()
            }
            let wall = Self.clock(CLOCK_MONOTONIC) - wallStart
            #expect(sink > 0)
            #expect(counted >= 24_000_000, "\(counted) ns of CPU counted")
            #expect(Double(wall) >= 0.95 * Double(counted) / 0.5, "wall \(wall) ns for \(counted) ns of CPU at share 0.5")
        }
    }
}
