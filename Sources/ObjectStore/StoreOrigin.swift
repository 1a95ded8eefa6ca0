/// Where a store's URL points: scheme, host and port. A URL is this origin followed by a request target (path and
/// query).
struct StoreOrigin: Hashable, Sendable {
    /// `http` or `https`.
    var scheme: String
    /// The host name or address, without brackets for IPv6.
    var host: String
    var port: Int
    /// The `Host` header's value: the URL's authority.
    var hostHeader: String
    /// `SCHEME://AUTHORITY`, as the URL starts.
    var prefix: String

    /// Splits `http(s)://HOST[:PORT]/TARGET` into its origin and target (`/` when the URL has none); nil for any
    /// other form (no user info, no fragment).
    static func split(_ url: String) -> (origin: StoreOrigin, target: String)? {
        // By hand, not with Foundation's string searches: this runs for every read sent to a store.
        let scheme: String
        if url.hasPrefix("http://") {
            scheme = "http"
        } else if url.hasPrefix("https://") {
            scheme = "https"
        } else {
            return nil
        }
        let rest = url.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard !authority.isEmpty, !authority.utf8.contains(UInt8(ascii: "@")), !rest.utf8.contains(UInt8(ascii: "#")) else { return nil }
        var host = authority
        var port = scheme == "https" ? 443 : 80
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let number = Int(after.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = authority.lastIndex(of: ":") {
            guard let number = Int(authority[authority.index(after: colon)...]) else { return nil }
            host = authority[..<colon]
            port = number
        }
        guard !host.isEmpty, (1...65_535).contains(port) else { return nil }
        let origin = StoreOrigin(
            scheme: scheme, host: String(host), port: port, hostHeader: String(authority), prefix: String(url[..<authority.endIndex]))
        return (origin, target(after: rest[authority.endIndex...]))
    }

    /// The target of `url` if it starts with this origin, else nil.
    func target(in url: String) -> String? {
        guard url.utf8.starts(with: prefix.utf8) else { return nil }
        let rest = url.utf8.dropFirst(prefix.utf8.count)
        guard let first = rest.first else { return "/" }
        guard first == UInt8(ascii: "/") || first == UInt8(ascii: "?"), !rest.contains(UInt8(ascii: "#")) else { return nil }
        return Self.target(after: Substring(rest))
    }

    private static func target(after rest: Substring) -> String {
        rest.isEmpty ? "/" : (rest.hasPrefix("?") ? "/" + rest : String(rest))
    }
}
