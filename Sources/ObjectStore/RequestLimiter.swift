import NIOConcurrencyHelpers
import NIOCore

/// A counting semaphore for futures: at most `limit` holders at once, the rest waiting in arrival order. Nothing blocks:
/// a waiter's future completes (on its own loop) when a holder releases.
package final class RequestLimiter: Sendable {
    private struct State {
        var inFlight = 0
        var waiting = CircularBuffer<EventLoopPromise<Void>>()
    }

    /// The most holders at once.
    package let limit: Int
    private let state = NIOLockedValueBox(State())

    /// Creates a limiter admitting `limit` holders.
    package init(limit: Int) {
        precondition(limit >= 1, "a limiter admits at least one holder")
        self.limit = limit
    }

    /// A future that completes on `eventLoop` once the caller holds a place; call ``release()`` exactly once after.
    package func acquire(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        let promise: EventLoopPromise<Void>? = state.withLockedValue { state in
            if state.inFlight < limit {
                state.inFlight += 1
                return nil
            }
            let promise = eventLoop.makePromise(of: Void.self)
            state.waiting.append(promise)
            return promise
        }
        return promise?.futureResult ?? eventLoop.makeSucceededVoidFuture()
    }

    /// Gives a place back: to the longest waiter, or to the pool.
    package func release() {
        // The place passes straight to the next waiter (inFlight unchanged), whose promise is completed outside the lock.
        let next: EventLoopPromise<Void>? = state.withLockedValue { state in
            if let next = state.waiting.popFirst() { return next }
            precondition(state.inFlight > 0, "release() without acquire()")
            state.inFlight -= 1
            return nil
        }
        next?.succeed()
    }

    /// Holders now and waiters now (for tests and metrics).
    package var load: (inFlight: Int, waiting: Int) {
        state.withLockedValue { ($0.inFlight, $0.waiting.count) }
    }
}
