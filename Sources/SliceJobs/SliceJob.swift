import Foundation
import HTTPCore
import Slicing
import Synchronization

/// One upload or inbox file on its way to a published pyramid: its identity, its changing ``JobSnapshot``, the
/// flag that cancels its slice, and the watchers (event streams) told of each change. Thread-safe.
package final class SliceJob: Sendable {
    /// 128 random bits, base64url: the job's capability URL (`/api/jobs/ID`).
    package let id: String
    /// The image name it publishes (`trips/alps`).
    package let name: String
    package let source: JobSource
    /// Whether an existing image of that name is replaced (`?replace=1`).
    package let replace: Bool
    /// When the job was made, Unix seconds.
    package let created: Int
    /// The file sliced: the upload's staging file, or the inbox file.
    package let input: String
    /// Set by `DELETE`; the slicer polls it between rows and tiles.
    package let cancellation = SliceCancellation()
    private let current: Mutex<JobSnapshot>
    private let watchers = Mutex<[UInt64: @Sendable () -> Void]>([:])
    private let nextWatcher = Atomic<UInt64>(0)

    package init(
        id: String, name: String, source: JobSource, replace: Bool, input: String, state: JobState, created: Int = Int(Date().timeIntervalSince1970)
    ) {
        self.id = id
        self.name = name
        self.source = source
        self.replace = replace
        self.input = input
        self.created = created
        current = Mutex(JobSnapshot(state: state))
    }

    /// A new unguessable job id: 16 random bytes (the system's CSPRNG), base64url without padding.
    package static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Base64URL.encode(bytes)
    }

    /// The job now.
    package var snapshot: JobSnapshot { current.withLock { $0 } }

    /// Changes the job (nothing once it is over, except by `force`) and tells the watchers. Returns whether it changed.
    @discardableResult
    package func update(force: Bool = false, _ change: (inout JobSnapshot) -> Void) -> Bool {
        let changed = current.withLock { snapshot -> Bool in
            guard force || !snapshot.state.isTerminal else { return false }
            let before = snapshot
            change(&snapshot)
            return snapshot != before
        }
        if changed {
            for watcher in watchers.withLock({ Array($0.values) }) { watcher() }
        }
        return changed
    }

    /// Ends the job as failed with `message` (one line), unless it is over already.
    package func fail(_ message: String) {
        update {
            $0.state = .failed
            $0.error = message
            $0.dzi = nil
        }
    }

    /// Calls `onChange` (on the changing thread) after each change until ``unwatch(_:)``; returns its key.
    package func watch(_ onChange: @escaping @Sendable () -> Void) -> UInt64 {
        let key = nextWatcher.add(1, ordering: .relaxed).newValue
        watchers.withLock { $0[key] = onChange }
        return key
    }

    /// Stops calling the watcher `key`.
    package func unwatch(_ key: UInt64) {
        _ = watchers.withLock { $0.removeValue(forKey: key) }
    }
}
