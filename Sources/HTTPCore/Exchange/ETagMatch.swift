/// `If-None-Match` evaluation (RFC 9110 §13.1.2): weak comparison against one strong entity tag.
package enum ETagMatch {
    /// Whether the `If-None-Match` field value `header` matches `etag` (quotes included): `*`, or a
    /// comma-separated list holding `etag` with or without a `W/` prefix.
    ///
    /// - Complexity: O(n) in the header's length; no allocation.
    package static func matches(_ header: String, etag: some Collection<UInt8>) -> Bool {
        var rest = header.utf8[...]
        while !rest.isEmpty {
            rest = rest.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
            let end = rest.firstIndex(of: UInt8(ascii: ",")) ?? rest.endIndex
            var candidate = rest[..<end]
            rest = rest[end...]
            while let last = candidate.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") {
                candidate = candidate.dropLast()
            }
            if candidate.elementsEqual("*".utf8) { return true }
            if candidate.starts(with: "W/".utf8) { candidate = candidate.dropFirst(2) }
            if candidate.elementsEqual(etag) { return true }
        }
        return false
    }
}
