import NIOCore

/// A clock that stands still until a test moves it, read in milliseconds from its start: the `now` given to state that
/// does not read the time itself (``ConnectionState``), so that a test asserts what it decides just before and at each
/// deadline.
struct ManualClock {
    /// The instant the clock starts at: an uptime far from zero, as a real one would be.
    static let start = NIODeadline.uptimeNanoseconds(1_000_000_000_000)

    /// Milliseconds since the start.
    private(set) var milliseconds: Int64 = 0

    /// The clock's time.
    var now: NIODeadline { Self.at(milliseconds) }

    /// The instant `milliseconds` after the start.
    static func at(_ milliseconds: Int64) -> NIODeadline {
        start + .milliseconds(milliseconds)
    }

    /// Moves the clock to `milliseconds` after its start and returns that time.
    /// - Precondition: `milliseconds` is not before the clock's time (a test reads in order).
    @discardableResult
    mutating func move(to milliseconds: Int64) -> NIODeadline {
        precondition(milliseconds >= self.milliseconds, "the clock moves forward only")
        self.milliseconds = milliseconds
        return now
    }
}
