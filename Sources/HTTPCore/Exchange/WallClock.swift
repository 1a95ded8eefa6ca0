import Glibc

/// The wall clock in whole Unix seconds, for what is compared with a client's clock (signatures' and tokens'
/// expiries, `max-age` counted to them).
///
/// Read from `CLOCK_REALTIME`, not `time(nil)`: that reads the kernel's coarse clock, which can show the last second
/// for a tick (up to 4 ms) after it has turned, and a `max-age` counted from it would outlive its signature by as much.
package enum WallClock {
    /// The current second since 1970. O(1), a vDSO call.
    @inlinable package static func seconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now.tv_sec
    }
}
