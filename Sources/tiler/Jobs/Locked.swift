import Foundation

/// A value shared between threads, every access under a lock.
final class Locked<Value>: @unchecked Sendable {
    // All access to `value` goes through `lock`.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock.
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.withLock { body(&value) }
    }
}
