import FoundationEssentials

/// The member names of a token's claims object, read as written: JSON parsers disagree on which of two members with
/// the same name counts (the first, the last, or an error), so a token whose claims repeat a name could mean one thing
/// to the side that minted it and another here. Such a token is refused (``AccessRefusal/repeatedClaim``).
enum ClaimKeys {
    /// Whether the JSON object `bytes` names a member twice (after unescaping: `"img"` and `"\u0069mg"` are the same
    /// name); false for text that is not one object, which the claims' decoding refuses on its own.
    ///
    /// - Complexity: O(n) in the bytes, plus one string decoding per member name with escapes.
    static func repeatsAName(_ bytes: [UInt8]) -> Bool {
        var scanner = Scanner(bytes: bytes)
        guard let names = scanner.memberNames() else { return false }
        return Set(names).count != names.count
    }

    /// A forward reader of one JSON object's member names, skipping their values.
    private struct Scanner {
        let bytes: [UInt8]
        var at = 0

        /// The object's member names in order, or nil when the text is not one object.
        mutating func memberNames() -> [String]? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var names: [String] = []
            skipSpace()
            if take(UInt8(ascii: "}")) { return names }
            while true {
                skipSpace()
                guard let name = string() else { return nil }
                names.append(name)
                skipSpace()
                guard take(UInt8(ascii: ":")), skipValue() else { return nil }
                skipSpace()
                if take(UInt8(ascii: "}")) { return names }
                guard take(UInt8(ascii: ",")) else { return nil }
            }
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard at < bytes.count, bytes[at] == byte else { return false }
            at += 1
            return true
        }

        private mutating func skipSpace() {
            while at < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { at += 1 }
        }

        /// The string starting here, unescaped; nil when there is none.
        private mutating func string() -> String? {
            let start = at
            guard skipString() else { return nil }
            let raw = bytes[start..<at]
            guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw.dropFirst().dropLast(), as: UTF8.self) }
            return try? JSONDecoder().decode(String.self, from: Data(raw))
        }

        /// Moves past the string starting here (its quotes and escapes).
        private mutating func skipString() -> Bool {
            guard take(UInt8(ascii: "\"")) else { return false }
            while at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: "\\"): at += 2
                case UInt8(ascii: "\""):
                    at += 1
                    return true
                default: at += 1
                }
            }
            return false
        }

        /// Moves past the value starting here: a string, or everything up to the `,` or `}` that ends it at this depth.
        private mutating func skipValue() -> Bool {
            skipSpace()
            var depth = 0
            while at < bytes.count {
                switch bytes[at] {
                case UInt8(ascii: "\""):
                    guard skipString() else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if depth == 0 { return true }
                    depth -= 1
                case UInt8(ascii: ","):
                    if depth == 0 { return true }
                default: break
                }
                at += 1
            }
            return false
        }
    }
}
