import Logging
import Synchronization

/// A logger that keeps every message it is given (at `level` and above), for checking what a server logged and how
/// often.
final class LogRecorder: Sendable {
    private let recorded = Mutex<[String]>([])
    private let level: Logger.Level

    init(level: Logger.Level = .warning) {
        self.level = level
    }

    /// The messages so far, in order.
    var lines: [String] { recorded.withLock { $0 } }

    /// A logger writing here.
    var logger: Logger {
        var logger = Logger(label: "test") { _ in Handler(recorder: self) }
        logger.logLevel = level
        return logger
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            recorder.recorded.withLock { $0.append(event.message.description) }
        }
    }
}
