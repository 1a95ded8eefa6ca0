/// An access key pair (and the session token of temporary credentials) for signing requests.
///
/// Its `description` and `debugDescription` name the access key's first four characters and hide the rest, the secret
/// and the token, so a credential printed by mistake (`"\(config)"`, a log line, a test failure) gives nothing away.
public struct S3Credentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The access key id (`AWS_ACCESS_KEY_ID`).
    public let accessKeyID: String
    /// The secret access key (`AWS_SECRET_ACCESS_KEY`); only the signer reads it.
    public let secretAccessKey: String
    /// The session token of temporary credentials (`AWS_SESSION_TOKEN`), sent as `x-amz-security-token`.
    public let sessionToken: String?
    /// Where they were found, for log lines: `environment`, `profile default in /root/.aws/credentials`, ….
    public let source: String

    /// Creates credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, source: String = "given") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.source = source
    }

    /// `S3Credentials(AKIA…, from environment)`: never the secret or the token, and not the whole key id.
    public var description: String {
        let shown = accessKeyID.count > 8 ? String(accessKeyID.prefix(4)) + "…" : "…"
        let token = sessionToken == nil ? "" : ", with a session token"
        return "S3Credentials(\(shown), from \(source)\(token))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
