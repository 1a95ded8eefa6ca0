extension XMLTagScanner {
    /// `text` with `&lt;` `&gt;` `&amp;` `&quot;` `&apos;`, `&#NN;` and `&#xHH;` replaced by their characters.
    ///
    /// - Throws: ``GeometryError`` (parameter `dzi`) for an unknown or unterminated reference.
    static func decodeEntities(_ text: String) throws(GeometryError) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = text[...]
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else { throw badReference(rest[amp...]) }
            let name = rest[rest.index(after: amp)..<semicolon]
            guard let character = character(named: name) else { throw badReference(rest[amp...semicolon]) }
            result.append(character)
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

    private static func character(named name: Substring) -> Character? {
        switch name {
        case "lt": return "<"
        case "gt": return ">"
        case "amp": return "&"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let hex = name.hasPrefix("#x")
            let digits = name.dropFirst(hex ? 2 : 1)
            guard !digits.isEmpty, digits.count <= 8, let code = UInt32(digits, radix: hex ? 16 : 10) else { return nil }
            return Unicode.Scalar(code).map(Character.init)
        }
    }

    private static func badReference(_ text: Substring) -> GeometryError {
        GeometryError(parameter: "dzi", message: "dzi is not well-formed XML: bad character reference \(GeometryInput.quoted(text))")
    }
}
