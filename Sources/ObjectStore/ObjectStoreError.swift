/// A failed request to an object store, as one line: what was asked of which store and key, and what came back.
///
/// It never holds credentials: the store is named by its scheme, host and bucket, the detail by a status and the
/// store's error code (S3's `<Code>`, never its `<Message>` or `<StringToSign>`) or by the kind of network failure.
/// Callers branch on ``kind``; the server maps it to its own answers (404, 502, 503 with `Retry-After`, 504).
public struct ObjectStoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in the classes a caller acts on differently.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case notFound = "not found"
            case forbidden = "forbidden"
            case changed = "changed"
            case unavailable = "unavailable"
            case timeout = "timed out"
            case malformed = "malformed"
            case unsupported = "unsupported"
        }
        private let base: Base

        /// The object, bucket or upload does not exist (404).
        public static let notFound = Kind(base: .notFound)
        /// The store refused the request: bad or missing credentials, a wrong signature, no permission (401, 403).
        public static let forbidden = Kind(base: .forbidden)
        /// The object is not the version asked for with `If-Match` (412): it was replaced under the reader.
        public static let changed = Kind(base: .changed)
        /// The store is down or overloaded (5xx, 429, refused or reset connections, a body cut short).
        public static let unavailable = Kind(base: .unavailable)
        /// The store did not answer in time (connect, read or request deadline).
        public static let timeout = Kind(base: .timeout)
        /// The answer did not make sense (an unexpected status, bad XML, a range other than the one asked for).
        public static let malformed = Kind(base: .malformed)
        /// The store cannot do this at all (listing a plain HTTP server).
        public static let unsupported = Kind(base: .unsupported)

        /// The kind in words ("not found", "timed out", …).
        public var description: String { base.rawValue }
    }

    /// The class of failure.
    public let kind: Kind
    /// The HTTP status the store answered with, or nil when no answer came.
    public let status: Int?
    /// The store, as `s3://BUCKET/PREFIX/` or `https://HOST/PREFIX/` (never credentials).
    public let store: String
    /// The request: `GET`, `HEAD`, `PUT`, `LIST`, `CREATE-UPLOAD`, …
    public let operation: String
    /// The key relative to the store's prefix, or nil for requests about no one object (a listing).
    public let key: String?
    /// The store's error code or the network failure in a few words (`NoSuchKey`, `connection reset`).
    public let detail: String
    /// How long to wait before trying again, for ``Kind-swift.struct/unavailable`` and
    /// ``Kind-swift.struct/timeout``: the store's `Retry-After` (seconds) or a default of 1 s; nil otherwise.
    public let retryAfterSeconds: Int?
    /// Whether the request may be sent again as it is (network failures and 5xx of idempotent requests).
    package let isRetryable: Bool
    /// The store's own `Retry-After`, which the backoff honours (the default hint above does not drive it).
    package let storeRetryAfterSeconds: Int?

    /// Creates an error; the transport and the clients make these, tests compare their ``kind``.
    package init(
        kind: Kind, status: Int? = nil, store: String, operation: String, key: String?, detail: String, retryAfterSeconds: Int? = nil,
        isRetryable: Bool = false
    ) {
        self.kind = kind
        self.status = status
        self.store = store
        self.operation = operation
        self.key = key
        self.detail = detail
        self.retryAfterSeconds = retryAfterSeconds ?? ((kind == .unavailable || kind == .timeout) ? 1 : nil)
        self.storeRetryAfterSeconds = retryAfterSeconds
        self.isRetryable = isRetryable
    }

    /// One line: `object store s3://tiles/: GET a.szi: not found (404 NoSuchKey)`.
    public var description: String {
        var line = "object store \(store): \(operation)"
        if let key { line += " \(key)" }
        line += ": \(kind)"
        let parts = [status.map(String.init), detail.isEmpty ? nil : detail].compactMap { $0 }
        if !parts.isEmpty { line += " (\(parts.joined(separator: " ")))" }
        if let retryAfterSeconds { line += ", retry after \(retryAfterSeconds) s" }
        return line
    }
}
