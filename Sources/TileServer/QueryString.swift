/// Reads parameters from a raw query string (`x=1&y=2`).
///
/// The first occurrence of a name wins; names are compared undecoded; values are percent-decoded once (`+` stays
/// `+`, since it is a sign in numbers). A value with a malformed escape is returned undecoded, so that parsing it
/// as a number fails with a message naming the parameter.
struct QueryString {
    /// The text after `?`.
    let text: Substring

    /// The value of the first `name=value` pair, `""` for a bare `name`, or `nil` when absent.
    ///
    /// - Complexity: O(n) in the query's length.
    func value(named name: String) -> Substring? {
        for pair in text.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            guard pair[..<equals] == name else { continue }
            let value = equals == pair.endIndex ? pair[equals...] : pair[pair.utf8.index(after: equals)...]
            return Self.decoded(value)
        }
        return nil
    }

    private static func decoded(_ value: Substring) -> Substring {
        guard value.utf8.contains(UInt8(ascii: "%")) else { return value }
        var bytes: [UInt8] = []
        var iterator = value.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(PercentEncoding.hexValue), let low = iterator.next().flatMap(PercentEncoding.hexValue) else {
                return value
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self).map { $0[...] } ?? value
    }

}
