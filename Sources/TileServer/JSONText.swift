/// The bits of JSON the server writes by hand (its answers are small and fixed in shape).
enum JSONText {
    /// `text` as a JSON string literal, quotes included; escapes `"`, `\` and control characters.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `{"error":"…","status":N}`: the body of every JSON error response.
    static func error(_ error: RequestError) -> String {
        "{\"error\":\(quoted(error.message)),\"status\":\(error.status.rawValue)}"
    }
}
