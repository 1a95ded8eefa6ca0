import NIOCore

/// Whether a store that has stopped answering is asked at all. After ``threshold`` requests in a row got no answer —
/// no connection, or none within the timeouts — the store is left alone for a while (``firstPause``, doubling with
/// each further failure to at most ``longestPause``): its requests then fail at once, with the time left as their
/// `Retry-After`, instead of each waiting out its own timeouts and retries. When the pause is over, one request probes
/// the store; any answer at all, even an error status, closes the breaker.
///
/// A value with time as a parameter: ``HTTPTransport`` keeps one per store under a lock. O(1) per call.
package struct StoreBreaker: Sendable {
    /// What to do with a request about to be sent.
    package enum Decision: Equatable {
        /// Send it.
        case send
        /// Send it as the probe of a store paused until now (its outcome opens or closes the breaker).
        case probe
        /// Fail it at once: the store is paused for `remaining` more.
        case refuse(remaining: TimeAmount)
    }

    /// Requests in a row without an answer that pause the store.
    package let threshold: Int
    package let firstPause: TimeAmount
    package let longestPause: TimeAmount
    private var failures = 0
    private var pausedUntil: NIODeadline?
    private var probing = false

    /// A closed breaker: pauses after `threshold` (≥ 1) unanswered requests in a row, for `firstPause` then twice as long
    /// each time, at most `longestPause`.
    package init(threshold: Int = 3, firstPause: TimeAmount = .milliseconds(500), longestPause: TimeAmount = .seconds(5)) {
        precondition(threshold >= 1, "a breaker opens after at least one failure")
        self.threshold = threshold
        self.firstPause = firstPause
        self.longestPause = longestPause
    }

    /// Whether a request may be sent at `now`.
    package mutating func admit(now: NIODeadline) -> Decision {
        guard let pausedUntil else { return .send }
        if now < pausedUntil { return .refuse(remaining: pausedUntil - now) }
        // One probe at a time: the others wait for its outcome as long as the first pause.
        if probing { return .refuse(remaining: firstPause) }
        probing = true
        return .probe
    }

    /// A request sent at `now` got an answer (`answered`), or none at all.
    package mutating func record(answered: Bool, now: NIODeadline) {
        probing = false
        guard !answered else {
            failures = 0
            pausedUntil = nil
            return
        }
        failures += 1
        guard failures >= threshold else { return }
        let doublings = min(failures - threshold, 16)
        let pause = min(longestPause.nanoseconds, firstPause.nanoseconds << Int64(doublings))
        pausedUntil = now + .nanoseconds(pause)
    }

    /// Whether requests are being refused at `now`.
    package func isPaused(now: NIODeadline) -> Bool { pausedUntil.map { now < $0 } ?? false }
}
