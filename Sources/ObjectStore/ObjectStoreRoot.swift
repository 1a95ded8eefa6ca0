/// Where a collection lives: a bucket and prefix of an S3 store, or a folder of a plain HTTP(S) server.
///
/// Parsed from what a user types after `tiler serve`: `s3://BUCKET/PREFIX` or `https://HOST[:PORT]/PREFIX/` (or
/// `http://`). Keys handed to the readers are relative to the prefix.
public enum ObjectStoreRoot: Sendable, Equatable, CustomStringConvertible {
    /// An S3 bucket and the prefix under it.
    case s3(S3Location)
    /// A folder on an HTTP server that answers ranged GETs: scheme, host, port and a path ending in `/`.
    case http(HTTPLocation)

    /// Parses `s3://…`, `https://…` or `http://…`; nil for anything else (a local path).
    ///
    /// - Throws: ``ObjectStoreRootError`` for a root of one of these schemes that is not well formed.
    public static func parse(_ text: String) throws -> ObjectStoreRoot? {
        let lower = text.lowercased()
        if lower.hasPrefix("s3://") { return .s3(try S3Location(parsing: text)) }
        if lower.hasPrefix("https://") || lower.hasPrefix("http://") { return .http(try HTTPLocation(parsing: text)) }
        return nil
    }

    /// The root as the user would type it, normalised (`s3://bucket/prefix/`).
    public var description: String {
        switch self {
        case .s3(let location): location.description
        case .http(let location): location.description
        }
    }
}

/// A root that could not be parsed, with the text and the reason.
public struct ObjectStoreRootError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text given.
    public let text: String
    /// Why it is not a root.
    public let reason: String

    /// `not an object-store root 's3://': no bucket`.
    public var description: String { "not an object-store root '\(text)': \(reason)" }
}

/// A bucket and a prefix in it: `s3://BUCKET/PREFIX`.
public struct S3Location: Sendable, Equatable, CustomStringConvertible {
    /// The bucket name.
    public let bucket: String
    /// The prefix under which the collection's keys are, empty or ending in `/`.
    public let prefix: String

    /// Creates a location; a non-empty `prefix` gets a trailing `/`, leading `/`s are dropped.
    public init(bucket: String, prefix: String = "") {
        self.bucket = bucket
        var prefix = String(prefix.drop { $0 == "/" })
        if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
        self.prefix = prefix
    }

    /// Parses `s3://BUCKET` or `s3://BUCKET/PREFIX[/]`.
    ///
    /// - Throws: ``ObjectStoreRootError`` without `s3://` or a bucket, or with a bucket name S3 cannot have.
    public init(parsing text: String) throws {
        guard text.lowercased().hasPrefix("s3://") else { throw ObjectStoreRootError(text: text, reason: "it does not start with s3://") }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        guard !bucket.isEmpty else { throw ObjectStoreRootError(text: text, reason: "no bucket") }
        let allowed = bucket.unicodeScalars.allSatisfy {
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_".unicodeScalars.contains($0)
        }
        guard allowed, (3...255).contains(bucket.count) else {
            throw ObjectStoreRootError(text: text, reason: "'\(bucket)' is not a bucket name (3 to 255 letters, digits, '.', '-', '_')")
        }
        self.init(bucket: bucket, prefix: String(rest.dropFirst(bucket.count)))
    }

    /// Whether the bucket can only be reached path-style: a dot would break the TLS wildcard of
    /// `*.s3.amazonaws.com`, capitals and `_` are not host names.
    public var needsPathStyle: Bool {
        bucket.contains(".") || bucket.contains("_") || bucket != bucket.lowercased()
    }

    /// `s3://bucket/prefix/`.
    public var description: String { "s3://\(bucket)/\(prefix)" }
}

/// A folder of a plain HTTP(S) server: `https://HOST[:PORT]/PREFIX/`.
public struct HTTPLocation: Sendable, Equatable, CustomStringConvertible {
    /// `http` or `https`.
    public let scheme: String
    /// The host name or address (IPv6 without brackets).
    public let host: String
    /// The port, or nil for the scheme's default.
    public let port: Int?
    /// The percent-encoded path of the folder, starting and ending with `/`.
    public let path: String

    /// Parses `http[s]://HOST[:PORT][/PATH]`; the path gets a trailing `/`.
    ///
    /// - Throws: ``ObjectStoreRootError`` without a host, with a bad port, a query, a fragment or user info.
    public init(parsing text: String) throws {
        let lower = text.lowercased()
        let scheme = lower.hasPrefix("https://") ? "https" : "http"
        guard lower.hasPrefix(scheme + "://") else { throw ObjectStoreRootError(text: text, reason: "it does not start with http:// or https://") }
        let rest = text.dropFirst(scheme.count + 3)
        guard !rest.contains("?"), !rest.contains("#") else { throw ObjectStoreRootError(text: text, reason: "a root has no query or fragment") }
        let authority = rest.prefix { $0 != "/" }
        guard !authority.contains("@") else { throw ObjectStoreRootError(text: text, reason: "credentials do not belong in the URL") }
        var path = String(rest.dropFirst(authority.count))
        if !path.hasSuffix("/") { path += "/" }
        let (host, port) = try Self.splitAuthority(String(authority), text: text)
        self.scheme = scheme
        self.host = host
        self.port = port
        self.path = path
    }

    private static func splitAuthority(_ authority: String, text: String) throws -> (String, Int?) {
        var host = authority
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw ObjectStoreRootError(text: text, reason: "unclosed [ in the host") }
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[authority.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            portText = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw ObjectStoreRootError(text: text, reason: "no host") }
        guard let portText else { return (host.lowercased(), nil) }
        guard let port = Int(portText), (1...65535).contains(port) else { throw ObjectStoreRootError(text: text, reason: "bad port '\(portText)'") }
        return (host.lowercased(), port)
    }

    /// `scheme://host[:port]`, the origin requests go to.
    public var origin: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(shownHost)" + (port.map { ":\($0)" } ?? "")
    }

    /// `https://host/prefix/`.
    public var description: String { origin + path }
}
