/// The numbers of IIIF request parameters (Image API 3.0 §4, §4.7): pixel values are non-negative decimal integers,
/// percentages and angles are decimal numbers made only of digits and at most one `.` (no sign, no exponent).
///
/// Everything here works on UTF-8 bytes: no allocation, no grapheme breaking.
package enum IIIFNumber {
    /// The largest integer accepted in a region or size: image sides are at most 2^31 pixels, and products of two
    /// such values still fit in an `Int`.
    package static let maxInteger = 1 << 31

    /// `text` as a non-negative integer (digits only; leading zeros allowed), or `nil` if it is not one or is larger
    /// than ``maxInteger``.
    ///
    /// - Complexity: O(n) in the text's length; no allocation.
    package static func integer(_ text: Substring) -> Int? {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 10 else { return nil }
        var value = 0
        for byte in utf8 {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value <= maxInteger ? value : nil
    }

    /// `text` as a non-negative decimal number (`12`, `0.5`, `.5`, `7.`), or `nil` if it has anything but digits
    /// and one dot, no digit at all, or more than 24 characters.
    package static func decimal(_ text: Substring) -> Double? {
        if let whole = integer(text) { return Double(whole) }
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= 24 else { return nil }
        var digits = 0
        var dots = 0
        for byte in utf8 {
            if byte == UInt8(ascii: ".") {
                dots += 1
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                digits += 1
            } else {
                return nil
            }
        }
        guard digits > 0, dots <= 1 else { return nil }
        return Double(String(text))
    }

    /// `text` split at commas into exactly four fields, each converted by `parse`; `nil` if there are more or fewer
    /// fields or one does not convert. No allocation.
    package static func four<T>(_ text: Substring, _ parse: (Substring) -> T?) -> (T, T, T, T)? {
        let utf8 = text.utf8
        var fields = (text[...], text[...], text[...], text[...])
        var start = utf8.startIndex
        for index in 0..<3 {
            guard let comma = utf8[start...].firstIndex(of: UInt8(ascii: ",")) else { return nil }
            switch index {
            case 0: fields.0 = text[start..<comma]
            case 1: fields.1 = text[start..<comma]
            default: fields.2 = text[start..<comma]
            }
            start = utf8.index(after: comma)
        }
        // The rest is the fourth field; a further comma makes it fail to parse.
        fields.3 = text[start...]
        guard let a = parse(fields.0), let b = parse(fields.1), let c = parse(fields.2), let d = parse(fields.3) else { return nil }
        return (a, b, c, d)
    }

    /// `value` in the shortest decimal form (`90`, `22.5`), for messages and canonical URIs.
    package static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}

extension Substring {
    /// Whether the text is exactly `literal` (compared as UTF-8 bytes).
    package func isBytes(_ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { utf8.elementsEqual($0) }
    }

    /// Whether the text starts with `literal` (compared as UTF-8 bytes).
    package func hasBytePrefix(_ literal: StaticString) -> Bool {
        literal.withUTF8Buffer { utf8.starts(with: $0) }
    }
}
