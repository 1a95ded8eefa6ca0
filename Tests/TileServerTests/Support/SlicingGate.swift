import Dispatch
import Synchronization

/// Holds a slicing job where the server reports it viewable (``ServerConfiguration/onViewable``) until the test has
/// looked: the test waits for the hold, looks, then releases. A hold never outlasts a minute, so a failing test
/// cannot hang the server's shutdown.
final class SlicingGate: Sendable {
    private let held = Mutex<String?>(nil)
    private let arrived = DispatchSemaphore(value: 0)
    private let released = DispatchSemaphore(value: 0)

    /// The hook: records the job and blocks its slicing thread until ``release()``.
    var hold: @Sendable (String) -> Void {
        { [self] id in
            held.withLock { $0 = id }
            arrived.signal()
            _ = released.wait(timeout: .now() + 60)
        }
    }

    /// Blocks until a job is held, at most `seconds`; its id, or nil.
    func waitUntilHeld(seconds: Double) -> String? {
        guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        return held.withLock { $0 }
    }

    /// Lets the held job go on.
    func release() { released.signal() }
}
