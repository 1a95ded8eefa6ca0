/// Reads parameters from a raw query string (`x=1&y=2`), split once into its pairs.
///
/// The first occurrence of a name wins; names are compared undecoded, byte for byte; values are percent-decoded
/// once (`+` stays `+`, since it is a sign in numbers). A value with a malformed escape is returned undecoded, so
/// that parsing it as a number fails with a message naming the parameter.
package struct QueryString {
    /// The `name=value` pairs in order (a bare `name` has an empty value), undecoded.
    private var pairs: [(name: Substring, value: Substring)] = []

    /// Splits `text`, the part of the target after `?`. O(n) in its length.
    package init(text: Substring) {
        var rest = text
        while !rest.isEmpty {
            let end = rest.utf8.firstIndex(of: UInt8(ascii: "&")) ?? rest.endIndex
            let pair = rest[..<end]
            rest = end == rest.endIndex ? rest[end...] : rest[rest.utf8.index(after: end)...]
            guard !pair.isEmpty else { continue }
            if let equals = pair.utf8.firstIndex(of: UInt8(ascii: "=")) {
                pairs.append((pair[..<equals], pair[pair.utf8.index(after: equals)...]))
            } else {
                pairs.append((pair, pair[pair.endIndex...]))
            }
        }
    }

    /// The value of the first `name=value` pair, `""` for a bare `name`, or `nil` when absent.
    ///
    /// - Complexity: O(pairs), comparing bytes.
    package func value(named name: String) -> Substring? {
        for pair in pairs where pair.name.utf8.elementsEqual(name.utf8) {
            return Self.decoded(pair.value)
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
