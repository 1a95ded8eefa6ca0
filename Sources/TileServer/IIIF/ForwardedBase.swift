import NIOHTTP1

/// The public base URL a reverse proxy announces for a request: `Forwarded` (RFC 7239, its first element's `proto`
/// and `host`) or else `X-Forwarded-Proto` / `X-Forwarded-Host`, with `X-Forwarded-Prefix` appended. Only read when
/// the server trusts its proxy (`--trust-proxy`): otherwise any client could choose the URLs the server writes.
///
/// Values that could not be part of a URL the server writes safely are ignored (the request's `Host` is used): a
/// proto other than `http`/`https`, a host with other bytes than letters, digits, `.`, `-`, `_`, `:`, `[`, `]`, a
/// prefix that does not start with `/` or holds other bytes than a path's.
enum ForwardedBase {
    /// `proto://host[prefix]` without a trailing slash, or nil when the headers name no usable host.
    static func of(_ headers: HTTPHeaders) -> String? {
        var proto: Substring?
        var host: Substring?
        if let forwarded = headers.first(name: "forwarded"), let first = forwarded.split(separator: ",").first {
            for pair in first.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let key = parts[0].trimmingSpaces.lowercased()
                let value = unquoted(parts[1].trimmingSpaces)
                if key == "proto" { proto = value } else if key == "host" { host = value }
            }
        }
        if host == nil, let value = headers.first(name: "x-forwarded-host") {
            host = value.split(separator: ",").first?.trimmingSpaces
            proto = headers.first(name: "x-forwarded-proto").flatMap { $0.split(separator: ",").first?.trimmingSpaces }
        }
        guard let host, !host.isEmpty, host.utf8.count <= 255, host.utf8.allSatisfy(isHostByte) else { return nil }
        let scheme = proto.map { $0.lowercased() } ?? "http"
        guard scheme == "http" || scheme == "https" else { return nil }
        var base = "\(scheme)://\(host)"
        if let prefix = headers.first(name: "x-forwarded-prefix")?.split(separator: ",").first?.trimmingSpaces,
            prefix.first == "/", prefix.utf8.count <= 255, prefix.utf8.allSatisfy(isPathByte)
        {
            base += prefix.hasSuffix("/") ? prefix.dropLast() : prefix
        }
        return base
    }

    private static func unquoted(_ text: Substring) -> Substring {
        text.count >= 2 && text.first == "\"" && text.last == "\"" ? text.dropFirst().dropLast() : text
    }

    /// Letters, digits, `.`, `-`, `_`, `:`, `[`, `]`: a host name, an IPv4 or bracketed IPv6 address, a port.
    static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
            true
        default:
            false
        }
    }

    /// A host byte or `/`, `~`, `%`: a path prefix such as `/tiles` or `/a%20b`.
    private static func isPathByte(_ byte: UInt8) -> Bool {
        isHostByte(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "~") || byte == UInt8(ascii: "%")
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
