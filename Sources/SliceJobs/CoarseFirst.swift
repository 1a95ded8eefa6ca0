import Synchronization

/// The order in which a large JPEG's two builds join its provisional pyramid: the coarse pyramid first (the image is
/// viewable from then on), then the full build's staging folder in front of it, whose tiles replace the coarse ones
/// as they are written — whichever build gets there first. Until the coarse pyramid is there, the full build's first
/// rows would show a strip of the image, not a view of it.
///
/// Thread-safe: the builds run on two threads.
package final class CoarseFirst: Sendable {
    private let state = Mutex<(coarseSettled: Bool, full: String?)>((false, nil))
    private let register: @Sendable (String) -> Void

    /// `register` adds a tile folder in front of the provisional pyramid's (and makes it viewable the first time).
    package init(register: @escaping @Sendable (String) -> Void) {
        self.register = register
    }

    /// The full build's tile folder exists: registered now if the coarse pyramid is settled, else once it is.
    package func full(_ path: String) {
        let settled = state.withLock { state in
            state.full = path
            return state.coarseSettled
        }
        if settled { register(path) }
    }

    /// The coarse pyramid is whole at `path`: registered, then the full build's folder if it exists.
    package func coarse(_ path: String) {
        register(path)
        settle()
    }

    /// No coarse pyramid will come: the full build's folder is registered as soon as it exists.
    package func coarseFailed() {
        settle()
    }

    private func settle() {
        let full = state.withLock { state in
            state.coarseSettled = true
            return state.full
        }
        if let full { register(full) }
    }
}
