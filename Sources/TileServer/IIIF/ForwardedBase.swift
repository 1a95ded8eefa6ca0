import HTTPCore
import NIOHTTP1

/// The public base URL a reverse proxy announces for a request. Only read when the server trusts its proxy
/// (`--trust-proxy`): otherwise any client could choose the URLs the server writes.
///
/// - The scheme and host come from `Forwarded` (RFC 7239, its first element's `proto` and `host`) when it is valid
///   and names them, else from `X-Forwarded-Proto` and `X-Forwarded-Host` (their first values). Either may come alone: a TLS
///   terminator that passes `Host` through sends only the scheme (`X-Forwarded-Proto: https`), and the host is then
///   the request's own `Host`.
/// - `X-Forwarded-Prefix` (its first value) is put before the paths.
///
/// What is invalid is ignored, value by value: a `Forwarded` element that names a parameter twice (RFC 7239 §4) or is
/// not `token=value` pairs, a proto other than `http`/`https`, a host that is not `host[:port]` (``URLParts``), a
/// prefix that is not a plain path (``URLParts/pathPrefix(_:)``).
enum ForwardedBase {
    /// `proto://host[prefix]` without a trailing slash, or nil when the headers forward neither a scheme, a host nor
    /// a prefix that is valid, or no valid host is known at all.
    static func of(_ headers: HTTPHeaders) -> String? {
        var proto: Substring?
        var host: Substring?
        if let forwarded = firstForwardedElement(headers) {
            proto = forwarded.proto
            host = forwarded.host
        }
        proto = proto ?? headers.first(name: "x-forwarded-proto").flatMap(firstValue)
        host = host ?? headers.first(name: "x-forwarded-host").flatMap(firstValue)
        let scheme = proto.map { $0.lowercased() }.flatMap { $0 == "http" || $0 == "https" ? $0 : nil }
        if let candidate = host, !URLParts.isAuthority(candidate) { host = nil }
        let prefix = headers.first(name: "x-forwarded-prefix").flatMap(firstValue).flatMap(URLParts.pathPrefix)
        guard scheme != nil || host != nil || prefix != nil else { return nil }
        guard let authority = host ?? requestHost(headers) else { return nil }
        return "\(scheme ?? "http")://\(authority)\(prefix ?? "")"
    }

    /// The request's own `Host` when it is a valid `host[:port]`.
    static func requestHost(_ headers: HTTPHeaders) -> Substring? {
        guard let host = headers.first(name: "host") else { return nil }
        let value = Substring(host)
        return URLParts.isAuthority(value) ? value : nil
    }

    /// The `proto` and `host` of the first element of the first `Forwarded` header, or nil when there is none or it
    /// is invalid (a parameter named twice, a pair without `=`).
    static func firstForwardedElement(_ headers: HTTPHeaders) -> (proto: Substring?, host: Substring?)? {
        guard let forwarded = headers.first(name: "forwarded"), let first = forwarded.split(separator: ",", maxSplits: 1).first else {
            return nil
        }
        var seen: Set<String> = []
        var proto: Substring?
        var host: Substring?
        for pair in first.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { return nil }
            let key = parts[0].trimmingSpaces.lowercased()
            guard !key.isEmpty, seen.insert(key).inserted else { return nil }
            let value = unquoted(parts[1].trimmingSpaces)
            if key == "proto" { proto = value } else if key == "host" { host = value }
        }
        return seen.isEmpty ? nil : (proto, host)
    }

    private static func firstValue(_ header: String) -> Substring? {
        let value = header.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first?.trimmingSpaces
        return value?.isEmpty == false ? value : nil
    }

    private static func unquoted(_ text: Substring) -> Substring {
        text.count >= 2 && text.first == "\"" && text.last == "\"" ? text.dropFirst().dropLast() : text
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
