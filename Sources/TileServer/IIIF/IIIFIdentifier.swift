import HTTPCore

/// IIIF identifiers: a catalog name percent-encoded into one path segment, and back.
enum IIIFIdentifier {
    /// `name` as one path segment: every byte outside RFC 3986's unreserved set (including `/`) percent-encoded, so
    /// `maps/city` becomes `maps%2Fcity`.
    static func encode(_ name: String) -> String {
        if name.utf8.allSatisfy(isUnreserved) { return name }
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            if isUnreserved(byte) {
                bytes.append(byte)
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 15)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `byte` is in RFC 3986's unreserved set: letters, digits, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Decodes one identifier segment and checks it as an image name.
    ///
    /// - Throws: ``RequestError`` 400 for malformed escapes, invalid UTF-8, an empty name, NUL or control
    ///   characters, backslashes, a raw `#`, or empty, `.` or `..` name segments (after decoding `%2F`).
    static func decode(_ segment: Substring) throws(RequestError) -> Substring {
        if segment.utf8.contains(UInt8(ascii: "#")) { throw .badRequest("the identifier has a raw '#'") }
        let name = segment.utf8.contains(UInt8(ascii: "%")) ? try percentDecode(segment)[...] : segment
        guard !name.isEmpty else { throw .badRequest("the identifier is empty") }
        var length = 0
        var dots = 0
        for byte in name.utf8 {
            switch byte {
            case 0: throw .badRequest("the identifier has a NUL byte")
            case 1..<0x20, 0x7F: throw .badRequest("the identifier has a control character")
            case UInt8(ascii: "\\"): throw .badRequest("the identifier has a backslash")
            case UInt8(ascii: "/"):
                try checkNameSegment(length: length, dots: dots)
                (length, dots) = (0, 0)
                continue
            case UInt8(ascii: "."): dots += 1
            default: break
            }
            length += 1
        }
        try checkNameSegment(length: length, dots: dots)
        return name
    }

    /// Refuses an empty name segment, or one that is `.` or `..`.
    private static func checkNameSegment(length: Int, dots: Int) throws(RequestError) {
        guard length > 0 else { throw .badRequest("the identifier has an empty name segment") }
        guard dots != length || length > 2 else { throw .badRequest("the identifier has a '.' or '..' name segment") }
    }

    /// `text` with each `%XX` escape decoded once.
    ///
    /// - Throws: ``RequestError`` 400 for a malformed escape or bytes that do not decode to UTF-8.
    static func percentDecode(_ text: Substring) throws(RequestError) -> String {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return String(text) }
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                output.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(PercentEncoding.hexValue), let low = iterator.next().flatMap(PercentEncoding.hexValue)
            else { throw .badRequest("the path has a malformed percent escape") }
            output.append(high << 4 | low)
        }
        guard let decoded = String(validating: output, as: UTF8.self) else {
            throw .badRequest("the path does not decode to UTF-8")
        }
        return decoded
    }
}
