import HTTPCore
import Synchronization

/// One render submitted to the ``RenderPool``, as its connection sees it: the connection cancels it when its client
/// has gone. A render still waiting for a thread is dropped at once — its pool place freed and its completion called
/// with `CancellationError` — and never runs; a running one sees ``isCancelled`` at its next output row and stops.
///
/// Thread-safe: cancelled on the event loop, started and finished on a render thread; each transition is one
/// compare-and-exchange, so exactly one of dropping and starting happens.
package final class RenderJob: CancellableWork {
    private enum State: UInt8 {
        /// Waiting for a render thread.
        case queued
        /// On a render thread.
        case running
        /// On a render thread, asked to stop.
        case stopping
        /// Cancelled before it started: it will not run.
        case dropped
        /// Over (rendered, failed or stopped).
        case finished
    }

    private let state = Atomic<UInt8>(State.queued.rawValue)
    /// Called once if the job is dropped before it starts (the pool frees its place and completes it).
    private let onDrop: @Sendable () -> Void

    /// A queued job; `onDrop` runs, on the cancelling thread, if it is cancelled before a thread takes it.
    package init(onDrop: @escaping @Sendable () -> Void) {
        self.onDrop = onDrop
    }

    /// Whether the job was cancelled: a renderer checks it between rows and throws `CancellationError`.
    ///
    /// - Complexity: O(1), one relaxed atomic load.
    package var isCancelled: Bool {
        let current = state.load(ordering: .relaxed)
        return current == State.stopping.rawValue || current == State.dropped.rawValue
    }

    /// Cancels the job (its client has gone): a queued job is dropped now, a running one stops at its next row, a
    /// finished one is left alone. Calling it again does nothing.
    package func cancel() {
        if exchange(.queued, .dropped) {
            onDrop()
        } else {
            _ = exchange(.running, .stopping)
        }
    }

    /// A render thread takes the job; `false` when it was dropped (it must not run, and its place is already free).
    package func start() -> Bool {
        exchange(.queued, .running)
    }

    /// The render thread is done with the job; returns whether it had been asked to stop.
    package func finish() -> Bool {
        state.exchange(State.finished.rawValue, ordering: .relaxed) == State.stopping.rawValue
    }

    private func exchange(_ expected: State, _ desired: State) -> Bool {
        state.compareExchange(expected: expected.rawValue, desired: desired.rawValue, ordering: .acquiringAndReleasing).exchanged
    }
}
