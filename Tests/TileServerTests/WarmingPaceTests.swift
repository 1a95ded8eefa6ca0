import Foundation
import Glibc
import Synchronization
import Testing

@testable import TileServer
@testable import TileSources

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

    /// A signal delivered to the thread while it sleeps (a child process's SIGCHLD, say) does not cut its pause short:
    /// signalled every millisecond, the thread still keeps to its share.
    @Test func aSignalDoesNotShortenThePause() async throws {
        signal(SIGUSR2) { _ in }
        let result = Mutex<(wall: Int64, counted: Int64)>((0, 0))
        let finished = DispatchSemaphore(value: 0)
        let target = Mutex<pthread_t?>(nil)
        try await blocking {
            // Started here, not before: under a loaded test run the global queue may start this closure late, after
            // a thread started earlier had already finished unsignalled.
            let paced = Thread {
                // Threads inherit the blocked signals of the one that starts them.
                var signals = sigset_t()
                sigemptyset(&signals)
                sigaddset(&signals, SIGUSR2)
                pthread_sigmask(SIG_UNBLOCK, &signals, nil)
                target.withLock { $0 = pthread_self() }
                var pace = WarmingPace(share: 0.1, window: 1_000_000_000)
                let wallStart = Self.clock(CLOCK_MONOTONIC)
                var counted: Int64 = 0
                for _ in 0..<3 {
                    let start = Self.clock(CLOCK_THREAD_CPUTIME_ID)
                    while Self.clock(CLOCK_THREAD_CPUTIME_ID) - start < 4_000_000 {}
                    counted += pace.pace()
                }
                result.withLock { $0 = (Self.clock(CLOCK_MONOTONIC) - wallStart, counted) }
                target.withLock { $0 = nil }
                finished.signal()
            }
            paced.start()
            var signalled = 0
            while finished.wait(timeout: .now() + .milliseconds(1)) == .timedOut {
                target.withLock { thread in
                    if let thread, pthread_kill(thread, SIGUSR2) == 0 { signalled += 1 }
                }
            }
            let (wall, counted) = result.withLock { $0 }
            #expect(signalled > 5, "the thread was signalled \(signalled) times")
            #expect(Double(wall) >= 0.95 * Double(counted) / 0.1, "wall \(wall) ns for \(counted) ns of CPU at share 0.1")
        }
    }
}
