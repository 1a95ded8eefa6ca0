/// The slice's clock, and the throttle in front of the caller's progress callback.
struct ProgressMeter {
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let interval: Duration
    private var last: ContinuousClock.Instant
    private let callback: ((SliceProgress) -> Void)?

    /// Starts the clock now; `callback` is called at most every `interval` seconds by ``tick(_:)``.
    init(interval: Double, callback: ((SliceProgress) -> Void)?) {
        start = clock.now
        last = start
        self.interval = .nanoseconds(Int64(interval * 1e9))
        self.callback = callback
    }

    /// Seconds since the start.
    var elapsedSeconds: Double {
        let components = (clock.now - start).components
        return Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }

    /// Reports `snapshot()` if the interval has passed (or if `force`); `snapshot` is only evaluated then.
    mutating func tick(force: Bool = false, _ snapshot: (Double) -> SliceProgress) {
        guard let callback else { return }
        let now = clock.now
        guard force || now - last >= interval else { return }
        last = now
        callback(snapshot(elapsedSeconds))
    }
}
