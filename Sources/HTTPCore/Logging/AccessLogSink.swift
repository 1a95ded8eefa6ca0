import Glibc
import Synchronization

/// Where every event loop's access-log lines go: a file descriptor (standard output), written whole buffers at a
/// time under a lock, so that lines from different loops never interleave.
package final class AccessLogSink: Sendable {
    private let descriptor: Int32
    /// Whether a write failed (a closed pipe): lines are then dropped rather than block or crash. The lock also
    /// keeps writes whole.
    private let failed = Mutex(false)

    /// A sink writing to `descriptor` (1: standard output).
    package init(descriptor: Int32 = 1) {
        self.descriptor = descriptor
        // A reader that goes away (`tiler serve | head`) must cost the log, not the server: EPIPE, not a signal.
        signal(SIGPIPE, SIG_IGN)
    }

    /// Writes `bytes` (complete lines), retrying short writes; returns false when the descriptor refuses them.
    package func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        failed.withLock { failed in
            guard !failed else { return false }
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failed = true
                    return false
                }
                offset += written
            }
            return true
        }
    }
}
