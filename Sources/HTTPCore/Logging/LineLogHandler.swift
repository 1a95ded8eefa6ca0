import Glibc
import JSONText
import Logging
import Synchronization

/// A swift-log handler writing one line per message to standard error: text
/// (`2026-11-24T06:40:00.123Z info tiler.server: Serving 3 images key=value`, control characters in the message
/// and values escaped as `\xNN` by ``LogText``, so a record is always one line) or JSON
/// (`{"time":…,"level":…,"label":…,"message":…,"metadata":{…}}`). `tiler serve` bootstraps it once, with the
/// level and format its `--log-level` and `--log-format` name.
public struct LineLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let format: AccessLogFormat
    /// One lock for every handler, so that lines from several threads never interleave.
    private static let output = Mutex(())

    /// A handler for loggers labelled `label`, logging at `level` and above in `format`.
    public init(label: String, level: Logger.Level, format: AccessLogFormat) {
        self.label = label
        self.logLevel = level
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one line for `event` to standard error (with its error, if any, as metadata `error`).
    public func log(event: LogEvent) {
        var all = event.metadata.map { metadata.merging($0) { _, new in new } } ?? metadata
        if let error = event.error { all["error"] = "\(error)" }
        let text = Self.line(time: Self.now(), level: event.level, label: label, message: event.message.description, metadata: all, format: format)
        Self.output.withLock { _ in
            var bytes = text
            bytes.withUTF8 { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { return }
                    offset += written
                }
            }
        }
    }

    /// The line for one message, ending in a line feed.
    public static func line(
        time: String, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, format: AccessLogFormat
    ) -> String {
        let keys = metadata.keys.sorted()
        switch format {
        case .text:
            let pairs = keys.map { " \($0)=\(LogText.escaped("\(metadata[$0]!)"))" }.joined()
            return "\(time) \(level) \(label): \(LogText.escaped(message))\(pairs)\n"
        case .json:
            return JSONWriter.text { writer in
                writer.openObject()
                writer.member("time", time)
                writer.member("level", level.rawValue)
                writer.member("label", label)
                writer.member("message", message)
                if !keys.isEmpty {
                    writer.key("metadata")
                    writer.openObject()
                    for key in keys {
                        writer.member(key, "\(metadata[key]!)")
                    }
                    writer.closeObject()
                }
                writer.closeObject()
            } + "\n"
        }
    }

    /// The current time as ISO 8601 UTC with milliseconds.
    public static func now() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let milliseconds = Int(now.tv_nsec / 1_000_000)
        let digits = String(milliseconds)
        return AccessLog.isoSecond(now.tv_sec) + String(repeating: "0", count: 3 - digits.count) + digits + "Z"
    }
}
