import NIOCore

/// When and how long to wait before sending an idempotent request again: exponential backoff with full jitter (the
/// AWS SDKs' standard mode), on 5xx answers, refused or reset connections, bodies cut short and connect or read
/// timeouts.
///
/// The wait and the randomness are closures so tests can record the delays and not sleep: the default sleep schedules
/// on the request's event loop (nothing blocks it).
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (1: never retry).
    public var maxAttempts: Int
    /// The cap of the first retry's wait; doubled for each later one.
    public var baseDelay: TimeAmount
    /// The largest wait, whatever the attempt or the store's `Retry-After`.
    public var maxDelay: TimeAmount
    /// Waits `delay` on `eventLoop`, then completes the future on it.
    public var sleep: @Sendable (_ delay: TimeAmount, _ eventLoop: any EventLoop) -> EventLoopFuture<Void>
    /// A uniformly random number of nanoseconds in `0...upperBound`.
    public var jitter: @Sendable (_ upperBound: Int64) -> Int64

    /// Three attempts, waits up to 100 ms then 200 ms, never more than 2 s.
    public init(
        maxAttempts: Int = 3, baseDelay: TimeAmount = .milliseconds(100), maxDelay: TimeAmount = .seconds(2),
        sleep: @escaping @Sendable (TimeAmount, any EventLoop) -> EventLoopFuture<Void> = RetryPolicy.scheduledSleep,
        jitter: @escaping @Sendable (Int64) -> Int64 = { Int64.random(in: 0...max(0, $0)) }
    ) {
        precondition(maxAttempts >= 1, "a request is attempted at least once")
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.sleep = sleep
        self.jitter = jitter
    }

    /// No retries at all.
    public static var never: RetryPolicy { RetryPolicy(maxAttempts: 1) }

    /// The wait before attempt `attempt + 1` (`attempt` ≥ 1 have failed): a random time up to
    /// `min(maxDelay, baseDelay · 2^(attempt−1))`, but at least the store's `Retry-After` when that is under `maxDelay`.
    public func delay(afterAttempt attempt: Int, retryAfterSeconds: Int?) -> TimeAmount {
        let cap = min(maxDelay.nanoseconds, baseDelay.nanoseconds << min(max(attempt - 1, 0), 30))
        var wait = jitter(cap)
        if let retryAfterSeconds, TimeAmount.seconds(Int64(retryAfterSeconds)).nanoseconds <= maxDelay.nanoseconds {
            wait = max(wait, TimeAmount.seconds(Int64(retryAfterSeconds)).nanoseconds)
        }
        return .nanoseconds(min(max(wait, 0), maxDelay.nanoseconds))
    }

    /// The real wait: a task scheduled on the loop.
    public static let scheduledSleep: @Sendable (TimeAmount, any EventLoop) -> EventLoopFuture<Void> = { delay, eventLoop in
        eventLoop.scheduleTask(in: delay) {}.futureResult
    }
}
