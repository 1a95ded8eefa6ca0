/// A request target (`/images/a.dzi?x=1`) split into a validated, percent-decoded path and its raw query.
///
/// The path is decoded exactly once and then checked, so `%2e%2e` is refused like `..` and `%252e` stays the
/// literal text `%2e`. Refused with 400: targets not starting with `/` (absolute-form, `*`), paths longer than the
/// limit, malformed `%` escapes, encoded slashes (`%2F`), control bytes and NUL (raw or encoded), backslashes,
/// `#`, empty segments (`//`), `.` and `..` segments, and bytes that do not decode to UTF-8.
///
/// Without a `%` the path is a slice of the request's URI: no allocation.
package struct RequestTarget {
    /// The decoded path, starting with `/`; every segment is non-empty except possibly the last.
    package let path: Substring
    /// The text after the first `?`, undecoded (empty when there is none).
    package let query: Substring

    /// Splits and validates `uri`.
    ///
    /// - Throws: ``RequestError`` 400 naming what is wrong with the path.
    /// - Complexity: O(n) in the URI's length.
    package init(_ uri: String, maxPathBytes: Int) throws(RequestError) {
        // One pass over the URI's contiguous bytes (a native string's own storage): where the query starts, and
        // whether the path has a `%`. Index arithmetic on the UTF-8 view cost more than the whole check.
        var text = uri
        let (pathLength, hasEscape) = text.withUTF8 { bytes -> (Int, Bool) in
            var length = 0
            var hasEscape = false
            while length < bytes.count && bytes[length] != UInt8(ascii: "?") {
                hasEscape = hasEscape || bytes[length] == UInt8(ascii: "%")
                length += 1
            }
            return (length, hasEscape)
        }
        guard uri.utf8.first == UInt8(ascii: "/") else {
            throw .badRequest("the request target must be a path starting with /")
        }
        guard pathLength <= maxPathBytes else {
            throw .badRequest("the path is longer than \(maxPathBytes) bytes")
        }
        let utf8 = uri.utf8
        let queryMark = utf8.index(utf8.startIndex, offsetBy: pathLength)
        let rawPath = uri[..<queryMark]
        query = queryMark == utf8.endIndex ? uri[queryMark...] : uri[utf8.index(after: queryMark)...]
        if hasEscape {
            let decoded = try Self.decode(rawPath.utf8)
            guard decoded.utf8.count <= maxPathBytes else {
                throw .badRequest("the path is longer than \(maxPathBytes) bytes")
            }
            path = decoded[...]
        } else {
            let checked = text.withUTF8 { bytes in
                Result { () throws(RequestError) in try Self.check(UnsafeBufferPointer(rebasing: bytes[..<pathLength])) }
            }
            try checked.get()
            path = rawPath
        }
    }

    /// Checks an undecoded path without escapes.
    private static func check(_ bytes: UnsafeBufferPointer<UInt8>) throws(RequestError) {
        var segment = SegmentCheck()
        for byte in bytes.dropFirst() {
            if byte == UInt8(ascii: "/") {
                try segment.end(last: false)
            } else {
                try segment.add(byte, encoded: false)
            }
        }
        try segment.end(last: true)
    }

    /// Decodes `%XX` escapes once, checking every segment, and returns the decoded path.
    private static func decode(_ bytes: Substring.UTF8View) throws(RequestError) -> String {
        var output: [UInt8] = [UInt8(ascii: "/")]
        output.reserveCapacity(bytes.count)
        var segment = SegmentCheck()
        var index = bytes.index(after: bytes.startIndex)
        while index != bytes.endIndex {
            let byte = bytes[index]
            index = bytes.index(after: index)
            if byte == UInt8(ascii: "/") {
                try segment.end(last: false)
                output.append(byte)
            } else if byte == UInt8(ascii: "%") {
                guard let high = index != bytes.endIndex ? PercentEncoding.hexValue(bytes[index]) : nil,
                    case let next = bytes.index(after: index), next != bytes.endIndex, let low = PercentEncoding.hexValue(bytes[next])
                else {
                    throw .badRequest("the path has a malformed percent escape")
                }
                index = bytes.index(after: next)
                let decoded = high << 4 | low
                try segment.add(decoded, encoded: true)
                output.append(decoded)
            } else {
                try segment.add(byte, encoded: false)
                output.append(byte)
            }
        }
        try segment.end(last: true)
        guard let text = String(validating: output, as: UTF8.self) else {
            throw .badRequest("the path does not decode to UTF-8")
        }
        return text
    }

}

/// The rules for one path segment, fed a (decoded) byte at a time.
private struct SegmentCheck {
    package var length = 0
    package var dots = 0

    package mutating func add(_ byte: UInt8, encoded: Bool) throws(RequestError) {
        switch byte {
        case UInt8(ascii: "/"):
            throw .badRequest("the path has an encoded slash")
        case 0:
            throw .badRequest("the path has a NUL byte")
        case 1..<0x20, 0x7F:
            throw .badRequest("the path has a control character")
        case UInt8(ascii: "\\"):
            throw .badRequest("the path has a backslash")
        case UInt8(ascii: "#") where !encoded:
            throw .badRequest("the path has a fragment")
        case UInt8(ascii: "."):
            dots += 1
        default:
            break
        }
        length += 1
    }

    package mutating func end(last: Bool) throws(RequestError) {
        defer {
            length = 0
            dots = 0
        }
        if length == 0 && !last {
            throw .badRequest("the path has an empty segment")
        }
        if length == dots && (length == 1 || length == 2) {
            throw .badRequest("the path has a '.' or '..' segment")
        }
    }
}
