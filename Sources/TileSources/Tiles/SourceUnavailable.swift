import HTTPCore

/// A tile (or descriptor) could not be had because the store it lives in failed, not because it is missing or
/// damaged: the client is told which way, and when to ask again. `status` is 502 (the store answered with an error or
/// nonsense), 503 (it is unavailable or throttling; ``retryAfterSeconds`` is set) or 504 (it did not answer in time).
package struct SourceUnavailable: Error, Sendable, CustomStringConvertible {
    /// 502, 503 or 504.
    package let status: HTTPStatus
    /// When to ask again, for `Retry-After` (503 and 504).
    package let retryAfterSeconds: Int?
    /// One line naming the store, the object and what failed (for the log; clients get a generic line).
    package let message: String
    /// What failed, for logging once per interval each: the object of an SZI, the tiles folder of a Deep Zoom folder.
    package let source: String

    package var description: String { message }

    package init(status: HTTPStatus, retryAfterSeconds: Int?, message: String, source: String) {
        self.status = status
        self.retryAfterSeconds = retryAfterSeconds
        self.message = message
        self.source = source
    }
}
