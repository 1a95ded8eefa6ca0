/// The number grammar every front end (command line, HTTP query, DZI attributes) shares, so that the same text is
/// accepted or refused everywhere with a message naming the parameter.
///
/// - A *decimal* is `[+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?` whose value is finite:
///   `12`, `-0.5`, `.25`, `1e-3`. Refused: empty text, spaces, `inf`, `nan`, hex (`0x10`), `1e999`.
/// - An *integer* is `[+-]? digits` that fits in `Int`.
public enum GeometryInput {
    /// Parses `text` as a finite decimal number.
    ///
    /// - Complexity: O(`text.count`).
    /// - Throws: ``GeometryError`` naming `parameter` when `text` is not a decimal or its value is not finite.
    public static func decimal(_ text: some StringProtocol, parameter: String) throws(GeometryError) -> Double {
        // One non-generic pass over contiguous bytes (a short string is stored inline: no allocation).
        var string = String(text)
        guard string.withUTF8({ isDecimal($0) }), let value = Double(string) else {
            throw GeometryError(parameter: parameter, message: "\(parameter) must be a number (got \(quoted(text)))")
        }
        guard value.isFinite else {
            throw GeometryError(parameter: parameter, message: "\(parameter) is out of range (got \(quoted(text)))")
        }
        return value
    }

    /// Parses `text` as an integer.
    ///
    /// - Complexity: O(`text.count`).
    /// - Throws: ``GeometryError`` naming `parameter` when `text` is not an integer or does not fit in `Int`.
    public static func integer(_ text: some StringProtocol, parameter: String) throws(GeometryError) -> Int {
        let digits = text.utf8.drop { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") }
        guard text.utf8.count - digits.count <= 1, !digits.isEmpty, digits.allSatisfy(isDigit) else {
            throw GeometryError(parameter: parameter, message: "\(parameter) must be an integer (got \(quoted(text)))")
        }
        guard let value = Int(String(text)) else {
            throw GeometryError(parameter: parameter, message: "\(parameter) is out of range (got \(quoted(text)))")
        }
        return value
    }

    /// `text` in double quotes, shortened to 40 characters, for error messages.
    static func quoted(_ text: some StringProtocol) -> String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : String(text)
        return "\"" + shown + "\""
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// Whether `bytes` match the decimal grammar above.
    private static func isDecimal(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        func skipSign() {
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        }
        func digitCount() -> Int {
            let start = index
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            return index - start
        }
        skipSign()
        var mantissaDigits = digitCount()
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            mantissaDigits += digitCount()
        }
        guard mantissaDigits > 0 else { return false }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            skipSign()
            guard digitCount() > 0 else { return false }
        }
        return index == bytes.count
    }
}
