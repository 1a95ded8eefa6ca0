import Logging
import NIOCore
import Synchronization

/// Logs an event that can repeat thousands of times a second (an `accept` failing for lack of descriptors, a client
/// address over its connection cap) at most once per interval: the first at once, later ones summed up with how
/// many happened since the last line. Thread-safe.
package final class OccasionalLog: Sendable {
    private struct State {
        package var lastLine: NIODeadline?
        package var suppressed = 0
    }

    /// The most keys remembered apart (see ``note(_:key:)``); past it they are forgotten and start afresh.
    package static let keyCapacity = 256

    private let logger: Logger
    private let level: Logger.Level
    private let interval: TimeAmount
    private let state = Mutex(State())
    private let keyed = Mutex<[String: State]>([:])

    /// Creates a log writing to `logger` at `level`, at most one line per `interval`.
    package init(logger: Logger, level: Logger.Level = .warning, interval: TimeAmount = .seconds(10)) {
        self.logger = logger
        self.level = level
        self.interval = interval
    }

    /// Notes one event; logs `message` (with the count of events not logged since the last line) when the interval
    /// has passed. `message` is only built when a line is written.
    ///
    /// - Returns: Whether a line was written.
    @discardableResult
    package func note(_ message: @autoclosure () -> String, fileID: String = #fileID) -> Bool {
        let now = NIODeadline.now()
        return write(message(), skipped: state.withLock { admit(&$0, now: now) }, fileID: fileID)
    }

    /// As ``note(_:)``, but at most one line per interval for each `key` (an image, a file): one failing image's
    /// flood neither hides another's first failure nor is hidden by it. At most ``keyCapacity`` keys are remembered.
    @discardableResult
    package func note(_ message: @autoclosure () -> String, key: String, fileID: String = #fileID) -> Bool {
        let now = NIODeadline.now()
        let skipped: Int? = keyed.withLock { states in
            if states[key] == nil && states.count >= Self.keyCapacity { states.removeAll(keepingCapacity: true) }
            return admit(&states[key, default: State()], now: now)
        }
        return write(message(), skipped: skipped, fileID: fileID)
    }

    /// Whether a line may be written at `now` under `state`: nil (and one more suppressed) within the interval of the
    /// last line, else the count suppressed since it (and `state` starts a new interval).
    private func admit(_ state: inout State, now: NIODeadline) -> Int? {
        if let last = state.lastLine, now - last < interval {
            state.suppressed += 1
            return nil
        }
        defer { state = State(lastLine: now, suppressed: 0) }
        return state.suppressed
    }

    /// Logs `message` with the count of lines not written since the last, when admitted (`skipped` not nil), under
    /// the module of the caller's `fileID` (the line's source, as swift-log gives it to a direct call).
    private func write(_ message: @autoclosure () -> String, skipped: Int?, fileID: String) -> Bool {
        guard let skipped else { return false }
        let tail = skipped > 0 ? " (\(skipped) more since the last such line)" : ""
        logger.log(level: level, "\(message())\(tail)", source: String(fileID.prefix { $0 != "/" }))
        return true
    }
}
