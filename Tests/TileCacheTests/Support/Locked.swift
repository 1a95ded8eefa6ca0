import Synchronization

/// A value shared by test threads and callbacks, behind a mutex.
final class Locked<State: Sendable>: Sendable {
    private let mutex: Mutex<State>

    init(_ state: State) {
        mutex = Mutex(state)
    }

    func withLock<R: Sendable>(_ body: (inout State) -> R) -> R {
        mutex.withLock { body(&$0) }
    }

    var value: State { mutex.withLock { $0 } }
}
