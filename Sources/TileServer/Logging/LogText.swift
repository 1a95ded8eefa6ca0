/// Text as it may appear in a plain-text log line: one line, nothing a terminal acts on. A pyramid's name comes from
/// a file name, which anyone who can write under ROOT chooses: a line feed in it would forge a second log record and
/// an escape sequence would drive the terminal of whoever reads the log.
enum LogText {
    /// `text` with control characters (C0, DEL, C1), the line and paragraph separators, the bidirectional
    /// overrides and isolates, and `\` written as `\xNN` for each of their UTF-8 bytes, as nginx writes its logs
    /// (`\x1B[31m` for an escape sequence); anything else unchanged.
    ///
    /// - Complexity: O(n); one scan and no copy for text that needs no escape.
    static func escaped(_ text: String) -> String {
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
    /// The query parameters whose values are credentials: never written to a log.
    static let secretParameters: [String] = ["token", "sig"]

    /// A request target as logs show it: the values of `token=` and `sig=` (access tokens and tile signatures)
    /// written `REDACTED`; anything else unchanged.
    ///
    /// - Complexity: O(n); no copy for a target without a query (every tile but a private image's).
    static func redacted(_ target: String) -> String {
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        let path = target[..<mark]
        let query = target[target.utf8.index(after: mark)...]
        var pairs: [Substring] = []
        var changed = false
        for pair in query.split(separator: "&", omittingEmptySubsequences: false) {
            let name = pair.prefix { $0 != "=" }
            if name.count < pair.count, secretParameters.contains(where: { name.utf8.elementsEqual($0.utf8) }) {
                pairs.append(name + "=REDACTED")
                changed = true
            } else {
                pairs.append(pair)
            }
        }
        return changed ? path + "?" + pairs.joined(separator: "&") : target
    }
}
