import Foundation

/// A cancellation flag for a running slice, safe to set from any thread (for instance a `DispatchSource` signal
/// handler for SIGINT/SIGTERM — not directly from a raw signal handler, since it takes a lock).
///
/// The builder polls it between source reads and between tiles; once set it stays set.
public final class SliceCancellation: @unchecked Sendable {
    // @unchecked: the only state is `cancelled`, read and written under `lock`.
    private let lock = NSLock()
    private var cancelled = false
    private let parent: SliceCancellation?

    /// Creates a flag that is not set; with `parent`, it also counts as set once `parent` is (a part of a larger job
    /// that can be cancelled on its own).
    public init(parent: SliceCancellation? = nil) {
        self.parent = parent
    }

    /// Requests cancellation. Idempotent.
    public func cancel() {
        lock.withLock { cancelled = true }
    }

    /// Whether cancellation was requested.
    public var isCancelled: Bool {
        lock.withLock { cancelled } || parent?.isCancelled == true
    }
}
