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
        // One pass over the URI's contiguous bytes (a native string's own storage): where the query starts, whether
        // the path has a `%`, and, when it has none (nearly always), the path's check. Index arithmetic on the UTF-8
        // view cost more than the whole check.
        var text = uri
        let scan = text.withUTF8 { bytes -> Scan in
            var length = 0
            var hasEscape = false
            while length < bytes.count && bytes[length] != UInt8(ascii: "?") {
                hasEscape = hasEscape || bytes[length] == UInt8(ascii: "%")
                length += 1
            }
            var scan = Scan(pathLength: length, isWhole: length == bytes.count, startsWithSlash: bytes.first == UInt8(ascii: "/"))
            if !hasEscape && scan.startsWithSlash && length <= maxPathBytes {
                do throws(RequestError) {
                    try Self.check(UnsafeBufferPointer(rebasing: bytes[..<length]))
                    scan.checked = .success(())
                } catch {
                    scan.checked = .failure(error)
                }
            }
            return scan
        }
        guard scan.startsWithSlash else {
            throw .badRequest("the request target must be a path starting with /")
        }
        guard scan.pathLength <= maxPathBytes else {
            throw .badRequest("the path is longer than \(maxPathBytes) bytes")
        }
        let rawPath: Substring
        if scan.isWhole {
            // No query (nearly every tile request): the whole URI, without the index arithmetic and bounds checks
            // of slicing it (about 250 instructions a slice).
            rawPath = uri[...]
            query = ""
        } else {
            let utf8 = uri.utf8
            let queryMark = utf8.index(utf8.startIndex, offsetBy: scan.pathLength)
            rawPath = uri[..<queryMark]
            query = uri[utf8.index(after: queryMark)...]
        }
        if let checked = scan.checked {
            try checked.get()
            path = rawPath
        } else {
            let decoded = try Self.decode(rawPath.utf8)
            guard decoded.utf8.count <= maxPathBytes else {
                throw .badRequest("the path is longer than \(maxPathBytes) bytes")
            }
            path = decoded[...]
        }
    }

    /// What the pass over a URI's bytes found.
    private struct Scan {
        /// The bytes before the `?` (all of them without one).
        let pathLength: Int
        /// Whether there is no `?`.
        let isWhole: Bool
        let startsWithSlash: Bool
        /// The check of a path without escapes; nil when the path has one (it is decoded, then checked).
        var checked: Result<Void, RequestError>? = nil
    }

    /// Checks an undecoded path without escapes.
    private static func check(_ bytes: UnsafeBufferPointer<UInt8>) throws(RequestError) {
        // Nearly every path is plainly valid, which one tight loop over a table tells (about half the rules' cost a
        // byte); the others go through the rules, which name what is wrong.
        if isPlainlyValid(bytes) { return }
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

    /// Whether an undecoded path without escapes keeps every rule of ``SegmentCheck``: no control byte, DEL,
    /// backslash or `#`, no empty segment but the last, no `.` or `..` segment.
    private static func isPlainlyValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let classes = byteClasses.utf8Start
        var length = 0
        var dots = 0
        var index = 1
        while index < bytes.count {
            let byteClass = classes[Int(bytes[index])]
            index &+= 1
            if byteClass == UInt8(ascii: "p") {
                length &+= 1
            } else if byteClass == UInt8(ascii: "s") {
                if length == 0 || (length == dots && length <= 2) { return false }
                length = 0
                dots = 0
            } else if byteClass == UInt8(ascii: "d") {
                length &+= 1
                dots &+= 1
            } else {
                return false
            }
        }
        return !(length == dots && (length == 1 || length == 2))
    }

    /// What each byte is to a path segment, by its value: `p` a plain byte, `s` the slash, `d` the dot, `x` one
    /// refused anywhere (the control bytes, NUL, DEL, backslash, `#`).
    private static var byteClasses: StaticString {
        """
        xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxpppxppppppppppdspppppppppppppppp\
        ppppppppppppppppppppppppppppxppppppppppppppppppppppppppppppppppx\
        pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp\
        pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp
        """
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
