/// Reads the start tags of a small XML document (a DZI descriptor): element names and attributes, in order.
///
/// Enough XML for descriptors written by any tool: the declaration, comments, `DOCTYPE`, CDATA and end tags are
/// skipped; attribute values may use single or double quotes, with whitespace anywhere XML allows it, and the five
/// predefined entities and character references are decoded. Namespace prefixes are dropped from element names.
/// Not a validating parser: text content and nesting are ignored.
struct XMLTagScanner {
    /// A start tag or empty-element tag.
    struct Tag {
        /// The local name (after any `prefix:`).
        var name: String
        /// Attributes in document order, names as written.
        var attributes: [(name: String, value: String)]
    }

    private let bytes: [UInt8]
    private var position = 0

    /// The start tags of `text`, in document order.
    ///
    /// - Throws: ``GeometryError`` (parameter `dzi`) when the markup is not well-formed where it is read.
    static func tags(in text: String) throws(GeometryError) -> [Tag] {
        var scanner = XMLTagScanner(bytes: Array(text.utf8))
        var tags: [Tag] = []
        while let tag = try scanner.nextTag() { tags.append(tag) }
        return tags
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    /// Markup that is not a start tag, from its opening to its closing delimiter.
    private static let skipped: [(StaticString, StaticString)] = [
        ("<?", "?>"), ("<!--", "-->"), ("<![CDATA[", "]]>"), ("<!", ">"), ("</", ">"),
    ]

    private mutating func nextTag() throws(GeometryError) -> Tag? {
        search: while let open = bytes[position...].firstIndex(of: UInt8(ascii: "<")) {
            position = open
            for (start, end) in Self.skipped where try skip(from: start, to: end) {
                continue search
            }
            position += 1
            return try startTag()
        }
        return nil
    }

    /// If the input continues with `start`, moves past the next `end` and returns true.
    private mutating func skip(from start: StaticString, to end: StaticString) throws(GeometryError) -> Bool {
        guard hasPrefix(start, at: position) else { return false }
        var index = position + start.utf8CodeUnitCount
        while index < bytes.count && !hasPrefix(end, at: index) { index += 1 }
        guard index < bytes.count else { throw failure("unterminated \(start)") }
        position = index + end.utf8CodeUnitCount
        return true
    }

    private func hasPrefix(_ prefix: StaticString, at index: Int) -> Bool {
        prefix.withUTF8Buffer { prefix in
            index + prefix.count <= bytes.count && zip(prefix, bytes[index...]).allSatisfy { $0 == $1 }
        }
    }

    /// Reads a tag's name and attributes; `position` is just past `<`.
    private mutating func startTag() throws(GeometryError) -> Tag {
        let name = word()
        guard !name.isEmpty else { throw failure("expected an element name") }
        var tag = Tag(name: String(name.split(separator: ":").last ?? name[...]), attributes: [])
        while true {
            skipSpace()
            guard position < bytes.count else { throw failure("unterminated <\(name)>") }
            if bytes[position] == UInt8(ascii: ">") || hasPrefix("/>", at: position) {
                position += bytes[position] == UInt8(ascii: ">") ? 1 : 2
                return tag
            }
            let attribute = word()
            guard !attribute.isEmpty else { throw failure("unexpected character in <\(name)>") }
            skipSpace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else { throw failure("expected = after \(attribute)") }
            position += 1
            skipSpace()
            tag.attributes.append((attribute, try quotedValue(of: attribute)))
        }
    }

    private mutating func quotedValue(of attribute: String) throws(GeometryError) -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            throw failure("expected a quoted value for \(attribute)")
        }
        let quote = bytes[position]
        guard let close = bytes[(position + 1)...].firstIndex(of: quote) else { throw failure("unterminated value of \(attribute)") }
        let raw = String(decoding: bytes[(position + 1)..<close], as: UTF8.self)
        position = close + 1
        return try Self.decodeEntities(raw)
    }

    private mutating func word() -> String {
        let start = position
        while position < bytes.count, !Self.isDelimiter(bytes[position]) { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func skipSpace() {
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
    }

    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    private static func isDelimiter(_ byte: UInt8) -> Bool {
        isSpace(byte) || byte == UInt8(ascii: "=") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "/")
            || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
    }

    private func failure(_ what: String) -> GeometryError {
        GeometryError(parameter: "dzi", message: "dzi is not well-formed XML: \(what) at byte \(position)")
    }
}
