/// The one rule by which the project escapes text inside a JSON string — ``JSONWriter``'s strings and the access log's
/// fields alike: `"` and `\` as `\"` and `\\`; newline, return and tab as `\n`, `\r`, `\t`; every other control
/// character and DEL as `\u00XX` (so a field is one line of plain text whatever a client sent, and cannot drive a
/// terminal); U+2028 and U+2029 as `\u2028` and `\u2029`, so the text is also a valid JavaScript literal. Everything
/// else, valid UTF-8, is written as it is.
public enum JSONEscaping {
    /// Whether `byte` starts an escape (U+2028/U+2029 aside, which start with 0xE2).
    @inline(__always)
    static func isSpecial(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0xE2
    }

    /// Writes UTF-8 `bytes`, escaped, through `write`: runs of bytes that need no escape as they are (text that needs
    /// none is one call, no copy), each escape sequence as its own call.
    ///
    /// - Complexity: O(n), one pass.
    public static func escape(_ bytes: UnsafeBufferPointer<UInt8>, write: (UnsafeRawBufferPointer) -> Void) {
        var start = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            guard isSpecial(byte) else {
                index += 1
                continue
            }
            var length = 1
            let sequence: StaticString
            switch byte {
            case UInt8(ascii: "\""): sequence = "\\\""
            case UInt8(ascii: "\\"): sequence = "\\\\"
            case UInt8(ascii: "\n"): sequence = "\\n"
            case UInt8(ascii: "\r"): sequence = "\\r"
            case UInt8(ascii: "\t"): sequence = "\\t"
            case 0xE2:
                guard index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 else {
                    index += 1
                    continue
                }
                (sequence, length) = (bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029", 3)
            default:
                sequence = ""
            }
            if start < index { write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index])) }
            if sequence.utf8CodeUnitCount > 0 {
                write(UnsafeRawBufferPointer(start: sequence.utf8Start, count: sequence.utf8CodeUnitCount))
            } else {
                let hex: StaticString = "0123456789abcdef"
                let digits = hex.utf8Start
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 6) { escape in
                    for (offset, character) in "\\u00".utf8.enumerated() { escape[offset] = character }
                    escape[4] = digits[Int(byte >> 4)]
                    escape[5] = digits[Int(byte & 0xF)]
                    write(UnsafeRawBufferPointer(escape))
                }
            }
            index += length
            start = index
        }
        if start < count { write(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...])) }
    }
}
