/// How access-log lines (and the server's log lines) are written.
public enum AccessLogFormat: String, Sendable, CaseIterable {
    /// One human-readable line: `CLIENT [TIME] "METHOD TARGET" STATUS BYTES DURATIONus CACHE`.
    case text
    /// One JSON object per line: `{"time":…,"client":…,"method":…,"target":…,"status":…,"bytes":…,"duration_us":…,"cache":…}`.
    case json
}
