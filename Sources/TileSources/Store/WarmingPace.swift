import Glibc

/// Keeps the warming thread's CPU time within a share of one core: after each tile, if the thread has used more CPU
/// than `share` of the wall time since its window began, it sleeps until it is back within it. The thread runs at
/// normal priority (a warm read mostly waits for the disk, and at nice 19 beside a browser on two cores its reads
/// waited tens of milliseconds for a core), so this bound, not the scheduler, is what keeps it from taking a core
/// under a flood of visible-rect queries.
package struct WarmingPace {
    /// The most CPU time per wall time the thread may use (0 < share ≤ 1).
    package let share: Double
    /// How long a window lasts before the account starts again, in nanoseconds.
    package let window: Int64
    private var wallStart: Int64
    private var cpuStart: Int64
    private var cpuLast: Int64

    /// Starts an account on the calling thread.
    package init(share: Double, window: Int64 = 100_000_000) {
        precondition(share > 0 && share <= 1)
        self.share = share
        self.window = window
        wallStart = Self.clock(CLOCK_MONOTONIC)
        cpuStart = Self.clock(CLOCK_THREAD_CPUTIME_ID)
        cpuLast = cpuStart
    }

    /// Called on the same thread after each tile: sleeps if the thread is over its share; returns the CPU time the
    /// thread used since the last call, in nanoseconds.
    package mutating func pace() -> Int64 {
        let cpu = Self.clock(CLOCK_THREAD_CPUTIME_ID)
        let used = cpu - cpuLast
        cpuLast = cpu
        let wall = Self.clock(CLOCK_MONOTONIC) - wallStart
        let allowedWall = Int64(Double(cpu - cpuStart) / share)
        if allowedWall > wall {
            var pause = timespec(tv_sec: Int(allowedWall - wall) / 1_000_000_000, tv_nsec: Int(allowedWall - wall) % 1_000_000_000)
            // A signal (a child process's SIGCHLD, say) ends a sleep early: sleep the rest.
            var rest = timespec()
            while nanosleep(&pause, &rest) == -1 && errno == EINTR { pause = rest }
        }
        if wall >= window {
            wallStart = Self.clock(CLOCK_MONOTONIC)
            cpuStart = cpu
        }
        return used
    }

    private static func clock(_ id: clockid_t) -> Int64 {
        var now = timespec()
        clock_gettime(id, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
