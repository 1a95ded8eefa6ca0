import Foundation
import Synchronization

/// Work that throws, run on a thread of its own (inheriting the starting thread's CPU priority), and waited for once.
package final class JobThread: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let failure = Mutex<(any Error)?>(nil)

    /// Starts `work` on a new thread named `name`.
    package init(name: String, _ work: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            do {
                try work()
            } catch {
                failure.withLock { $0 = error }
            }
            done.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Waits for the work to end; rethrows what it threw.
    package func wait() throws {
        done.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
