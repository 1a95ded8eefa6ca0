/// Everything needed to address and sign requests to one bucket: where the store is, its region, how the bucket is
/// addressed, and the credentials (nil: anonymous, unsigned requests, as for a public bucket).
///
/// Usually made by ``fromEnvironment(_:environment:addressingStyle:)`` with the AWS tools' conventions. Its
/// description shows the credentials redacted.
public struct S3Configuration: Sendable, CustomStringConvertible {
    /// How a bucket is named in a request.
    public enum AddressingStyle: String, Sendable, CaseIterable {
        /// Path-style when a custom endpoint is set or the bucket name needs it; virtual-hosted otherwise.
        case automatic
        /// `http://ENDPOINT/BUCKET/KEY`: what Ceph, MinIO and most self-hosted stores expect.
        case path
        /// `https://BUCKET.ENDPOINT/KEY`: AWS's preferred form.
        case virtualHosted = "virtual"
    }

    /// The bucket and prefix of the collection.
    public var location: S3Location
    /// The store's origin (scheme, host, port; its path is ignored).
    public var endpoint: HTTPLocation
    /// Whether ``endpoint`` was given (`AWS_ENDPOINT_URL…`, config) rather than AWS's own for the region.
    public var hasCustomEndpoint: Bool
    /// The signing region (`us-east-1` unless told otherwise; Ceph accepts any it was configured with).
    public var region: String
    /// The addressing style asked for.
    public var addressingStyle: AddressingStyle
    /// The credentials, or nil to send unsigned requests.
    public var credentials: S3Credentials?
    /// The certificate authorities' PEM file for an `https://` endpoint with a private authority
    /// (``ObjectStoreOptions/caBundle``); nil: the system's.
    public var caBundle: String?

    /// Creates a configuration. Without an `endpoint`, AWS's `https://s3.REGION.amazonaws.com`.
    ///
    /// - Throws: ``ObjectStoreRootError`` when `endpoint` is not an `http(s)://HOST[:PORT]` URL.
    public init(
        location: S3Location, endpoint: String? = nil, region: String = "us-east-1", addressingStyle: AddressingStyle = .automatic,
        credentials: S3Credentials?
    ) throws {
        self.location = location
        self.endpoint = try HTTPLocation(parsing: endpoint ?? "https://s3.\(region).amazonaws.com")
        self.hasCustomEndpoint = endpoint != nil
        self.region = region
        self.addressingStyle = addressingStyle
        self.credentials = credentials
    }

    /// Whether requests name the bucket in the path: asked for, or automatic with a custom endpoint or a bucket name
    /// that is not a host name.
    public var usesPathStyle: Bool {
        switch addressingStyle {
        case .path: true
        case .virtualHosted: false
        case .automatic: hasCustomEndpoint || location.needsPathStyle
        }
    }

    /// The host (with `:PORT` when not the scheme's default) that requests go to and sign: `bucket.s3.…` when
    /// virtual-hosted.
    public var requestHost: String {
        let host = endpoint.host.contains(":") ? "[\(endpoint.host)]" : endpoint.host
        let named = usesPathStyle ? host : "\(location.bucket).\(host)"
        return named + (endpoint.port.map { ":\($0)" } ?? "")
    }

    /// The percent-encoded path of `fullKey` (a key including the prefix), or of the bucket when `fullKey` is empty.
    package func requestPath(fullKey: String) -> String {
        let encodedKey = SigV4Signer.encodePath(fullKey)
        return usesPathStyle ? "/\(location.bucket)/\(encodedKey)" : "/\(encodedKey)"
    }

    /// `s3://bucket/prefix/ at http://127.0.0.1:7480 (us-east-1, path-style, S3Credentials(TILE…, from environment))`.
    public var description: String {
        let style = usesPathStyle ? "path-style" : "virtual-hosted"
        return "\(location) at \(endpoint.origin) (\(region), \(style), \(credentials.map { "\($0)" } ?? "anonymous"))"
    }
}

/// A configuration that the environment or the shared files get wrong: one line, never a secret.
public struct S3ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and where.
    public let message: String

    /// The message.
    public var description: String { "S3 configuration: \(message)" }
}
