import NIOCore

/// What a `Range` request (RFC 9110 §14) asks of a file of known size and entity tag.
package enum ByteRange: Equatable {
    /// The whole file, 200: no `Range`, one this server does not take (several ranges, another unit, bad syntax —
    /// all of which RFC 9110 lets a server ignore), or an `If-Range` that does not match the current file.
    case whole
    /// One range of bytes, 206 with `Content-Range: bytes first-last/size`.
    case partial(Range<Int>)
    /// A range that starts past the end (or a zero-length suffix), 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    /// Evaluates a `Range` header for a file of `size` bytes whose strong entity tag (quotes included) is `etag`.
    ///
    /// Single ranges only: `bytes=a-b` (`b` clamped to the end), `bytes=a-`, `bytes=-n` (the last `n` bytes, all of
    /// them when the file is shorter). `If-Range` applies the range only when it is exactly the current entity tag;
    /// a date, a weak tag or another tag gets the whole file (this server sends no `Last-Modified`).
    ///
    /// - Complexity: O(n) in the headers' lengths.
    package static func evaluate(range: String?, ifRange: String?, etag: ByteBufferView, size: Int) -> ByteRange {
        guard let range else { return .whole }
        if let ifRange, !ifRange.utf8.elementsEqual(etag) { return .whole }
        var text = Substring(range)
        guard text.utf8.count <= 64, text.hasPrefix("bytes=") else { return .whole }
        text = text.dropFirst(6)
        guard !text.contains(","), let dash = text.firstIndex(of: "-") else { return .whole }
        let firstText = text[..<dash].trimmingSpaces
        let lastText = text[text.index(after: dash)...].trimmingSpaces
        if firstText.isEmpty {
            guard let suffix = Self.number(lastText) else { return .whole }
            guard suffix > 0, size > 0 else { return .unsatisfiable }
            return .partial(max(0, size - suffix)..<size)
        }
        guard let first = Self.number(firstText) else { return .whole }
        var last = size - 1
        if !lastText.isEmpty {
            guard let end = Self.number(lastText), end >= first else { return .whole }
            last = min(end, size - 1)
        }
        guard first < size else { return .unsatisfiable }
        return .partial(first..<(last + 1))
    }

    /// A non-negative decimal; one too large for an `Int` (2^63 and beyond) is `Int.max`, past the end of any file,
    /// so a first byte there is unsatisfiable (416) like any other past the end, and a last byte or suffix there
    /// covers the rest of the file.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(text) ?? Int.max
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return self[start...end]
    }
}
