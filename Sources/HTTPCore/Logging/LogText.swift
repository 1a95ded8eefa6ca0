/// Text as it may appear in a plain-text log line: one line, nothing a terminal acts on. A pyramid's name comes from
/// a file name, which anyone who can write under ROOT chooses: a line feed in it would forge a second log record and
/// an escape sequence would drive the terminal of whoever reads the log.
package enum LogText {
    /// `text` with control characters (C0, DEL, C1), the line and paragraph separators, the bidirectional
    /// overrides and isolates, and `\` written as `\xNN` for each of their UTF-8 bytes, as nginx writes its logs
    /// (`\x1B[31m` for an escape sequence); anything else unchanged.
    ///
    /// - Complexity: O(n); one scan and no copy for text that needs no escape.
    package static func escaped(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") || $0 >= 0xC2 }) else { return text }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            for byte in String(scalar).utf8 {
                result += "\\x"
                result.append(hexDigits[Int(byte >> 4)])
                result.append(hexDigits[Int(byte & 0xF)])
            }
        }
        return result
    }

    private static let hexDigits: [Character] = Array("0123456789ABCDEF")

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x5C, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}

extension LogText {
    /// What a query parameter's name (percent-decoded, in lower case) contains when its value may be a credential:
    /// `token`, `access_token` (RFC 6750's name, the likeliest slip of an integrator), `sig`, `Token`, `%74oken` and
    /// their like are never written to a log, whether or not the server reads them.
    package static let secretParameterMarks: [String] = ["token", "sig", "auth", "key", "secret", "pass"]

    /// The start of every access token (``AccessToken``'s format), wherever in a target it appears.
    package static let tokenMark = "tiler1."

    /// A request target as logs show it: the values of parameters whose names say credential (``secretParameterMarks``)
    /// written `REDACTED`, and anything in the path or elsewhere in the query that starts like an access token
    /// (`tiler1.`) too, up to the next `/`, `&`, `?`, `;` or `#`; anything else unchanged.
    ///
    /// - Complexity: O(n); no copy for a target without a query or token (every tile but a private image's).
    package static func redacted(_ target: String) -> String {
        let unmarked = tokensRedacted(target)
        guard let mark = unmarked.utf8.firstIndex(of: UInt8(ascii: "?")) else { return unmarked }
        let path = unmarked[..<mark]
        let query = unmarked[unmarked.utf8.index(after: mark)...]
        var pairs: [Substring] = []
        var changed = false
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let name = pair.prefix { $0 != "=" }
            if name.count < pair.count, isSecret(name) {
                pairs.append(name + "=REDACTED")
                changed = true
            } else {
                pairs.append(pair)
            }
        }
        return changed ? path + "?" + pairs.joined(separator: "&") : unmarked
    }

    /// Whether a parameter named `name` (as sent) may carry a credential.
    private static func isSecret(_ name: Substring) -> Bool {
        var decoded: [UInt8] = []
        var bytes = name.utf8[...]
        while let byte = bytes.popFirst() {
            if byte == UInt8(ascii: "%"), bytes.count >= 2, let high = PercentEncoding.hexValue(bytes[bytes.startIndex]),
                let low = PercentEncoding.hexValue(bytes[bytes.index(after: bytes.startIndex)])
            {
                decoded.append(high << 4 | low)
                bytes = bytes.dropFirst(2)
            } else {
                decoded.append(byte)
            }
        }
        let lower = String(decoding: decoded, as: UTF8.self).lowercased()
        return secretParameterMarks.contains { lower.contains($0) }
    }

    /// `target` with every run that starts with ``tokenMark`` written `REDACTED`.
    private static func tokensRedacted(_ target: String) -> String {
        guard target.contains(tokenMark) else { return target }
        var result = ""
        var rest = target[...]
        while let found = rest.firstRange(of: tokenMark) {
            result += rest[..<found.lowerBound]
            result += "REDACTED"
            rest = rest[found.lowerBound...].drop { !"/&?;#".contains($0) }
        }
        return result + rest
    }
}
