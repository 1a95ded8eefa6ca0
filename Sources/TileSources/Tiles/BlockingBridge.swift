import Dispatch
import Synchronization

/// Runs async code from synchronous code and waits for it: a command's `run()` (the servers' async lifecycle), a
/// catalog scan on a file thread (the object stores' listings). The one place a thread is blocked on async code.
package enum BlockingBridge {
    /// Runs `operation` on the concurrency pool and blocks the calling thread until it has finished; returns its
    /// result or rethrows its error. Never call it from async code (it would hold a pool thread).
    @available(*, noasync, message: "await the operation instead")
    package static func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
        let finished = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<Value, any Error>?>(nil)
        Task {
            let result: Result<Value, any Error>
            do {
                result = .success(try await operation())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            finished.signal()
        }
        finished.wait()
        return try outcome.withLock { $0! }.get()
    }

    /// ``run(_:)`` for an operation that cannot fail.
    @available(*, noasync, message: "await the operation instead")
    package static func run(_ operation: @escaping @Sendable () async -> Void) {
        // A non-throwing operation's result cannot be an error.
        try? run { () async throws -> Void in await operation() }
    }
}
