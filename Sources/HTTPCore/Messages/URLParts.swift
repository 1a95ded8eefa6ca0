/// Checks for the pieces of a URL the server writes from what a request says: an authority (`Host`,
/// `X-Forwarded-Host`, `Forwarded: host=`) and a path prefix (`X-Forwarded-Prefix`). Whatever fails is not copied
/// into an answer: a client or a misconfigured proxy must not be able to make the server write a URL that points
/// elsewhere than a host (`//evil.example`), climbs out of its path (`/../`) or is not a URL at all.
package enum URLParts {
    /// Whether `text` is `host[:port]`: a DNS name or IPv4 address (labels of letters, digits, `-` and `_`, separated
    /// by single dots, at most 253 bytes) or an IPv6 address in brackets, and a port of 1–65535 written in at most 5
    /// digits. An IPv6 address without brackets (`2001:db8::1`) is not an authority.
    ///
    /// - Complexity: O(n) in the text's length.
    package static func isAuthority(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 261 else { return false }
        var host = text
        var port: Substring?
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return false }
            host = text[...close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.first == ":" else { return false }
                port = rest.dropFirst()
            }
            guard isBracketedIPv6(host) else { return false }
        } else {
            if let colon = text.firstIndex(of: ":") {
                host = text[..<colon]
                port = text[text.index(after: colon)...]
            }
            guard isRegName(host) else { return false }
        }
        if let port {
            guard (1...5).contains(port.utf8.count), port.utf8.allSatisfy(isDigit), let value = Int(port), (1...65535).contains(value) else {
                return false
            }
        }
        return true
    }

    /// `https://AUTHORITY/TARGET` for a request that named `authority` (its `Host`) and `target`, with the port replaced
    /// by `port` (left out when 443) or, when `port` is nil, the authority as named; nil unless the authority passes
    /// ``isAuthority(_:)`` and the target is an origin-form path of printable ASCII without `"` — nothing else of a
    /// request is echoed into a URL.
    package static func httpsURL(authority: Substring, target: Substring, port: Int?) -> String? {
        guard isAuthority(authority), target.first == "/",
            target.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") })
        else { return nil }
        guard let port else { return "https://\(authority)\(target)" }
        let host = authority.first == "[" ? authority[...authority.firstIndex(of: "]")!] : authority.prefix { $0 != ":" }
        return "https://\(host)\(port == 443 ? "" : ":\(port)")\(target)"
    }

    /// `prefix` as a path prefix the server may put before its own paths — `/`, then segments of letters, digits,
    /// `-._~`, sub-delimiters other than `;,` and percent escapes, none of them `.` or `..` (also escaped), no empty
    /// segment (so never `//`) — without its trailing slash; nil when it is not one. `/` alone is the empty prefix.
    package static func pathPrefix(_ prefix: Substring) -> Substring? {
        guard prefix.first == "/", prefix.utf8.count <= 255 else { return nil }
        var body = prefix.dropFirst()
        if body.last == "/" { body = body.dropLast() }
        if body.isEmpty { return "" }
        for segment in body.split(separator: "/", omittingEmptySubsequences: false) {
            guard !segment.isEmpty, isSegment(segment) else { return nil }
            let lowered = segment.lowercased()
            guard lowered != ".", lowered != "..", lowered != "%2e", lowered != "%2e%2e", lowered != ".%2e", lowered != "%2e." else { return nil }
        }
        return prefix.last == "/" ? prefix.dropLast() : prefix
    }

    private static func isRegName(_ host: Substring) -> Bool {
        guard !host.isEmpty, host.utf8.count <= 253 else { return false }
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            guard (1...63).contains(label.utf8.count), label.utf8.allSatisfy(isLabelByte) else { return false }
        }
        return true
    }

    private static func isBracketedIPv6(_ host: Substring) -> Bool {
        let inner = host.dropFirst().dropLast()
        guard host.last == "]", inner.utf8.count >= 2, inner.utf8.count <= 45, inner.contains(":") else { return false }
        return inner.utf8.allSatisfy { isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }
    }

    private static func isSegment(_ segment: Substring) -> Bool {
        let bytes = Array(segment.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                    return false
                }
                index += 3
                continue
            }
            guard isLabelByte(byte) || "~.!$&'()*+=@".utf8.contains(byte) else { return false }
            index += 1
        }
        return true
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z")) || byte == UInt8(ascii: "-")
            || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }

    /// Letters, digits, `.`, `-`, `_`, `:`, `[`, `]`: a host name, an IPv4 or bracketed IPv6 address, a port.
    package static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]"):
            true
        default:
            false
        }
    }
}
