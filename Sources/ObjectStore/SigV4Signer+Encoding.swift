import Foundation

extension SigV4Signer {
    /// URI-encodes `text` as SigV4 wants: every byte but `A–Z a–z 0–9 - . _ ~` (and `/` when `keepSlash`) as `%XX`
    /// with upper-case hex digits, UTF-8 for anything else (a space is `%20`, never `+`).
    public static func encode(_ text: String, keepSlash: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: "/") where keepSlash:
                out.append(byte)
            default:
                out.append(contentsOf: [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An object key as a request path segment: encoded once, its `/`s kept (S3 does not double-encode).
    public static func encodePath(_ key: String) -> String {
        encode(key, keepSlash: true)
    }

    /// The signing time as `yyyyMMddTHHmmssZ` in UTC (`20130524T000000Z`).
    public static func timestamp(_ date: Date) -> String {
        let civil = CivilTime(secondsSince1970: Int64(date.timeIntervalSince1970.rounded(.down)))
        var text: [UInt8] = []
        text.reserveCapacity(16)
        func append(_ value: Int, digits: Int) {
            var divisor = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        append(civil.year, digits: 4)
        append(civil.month, digits: 2)
        append(civil.day, digits: 2)
        text.append(UInt8(ascii: "T"))
        append(civil.hour, digits: 2)
        append(civil.minute, digits: 2)
        append(civil.second, digits: 2)
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    static let newline = UInt8(ascii: "\n")
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `bytes` as lower-case hex digits.
    static func appendHex<Bytes: Sequence>(_ bytes: Bytes, to text: inout [UInt8]) where Bytes.Element == UInt8 {
        for byte in bytes {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    /// A header name as signed: ASCII letters lower-cased.
    static func lowercased(_ name: String) -> [UInt8] {
        name.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 + 32 : $0 }
    }

    /// A header value as signed: leading and trailing white space (space, tab, CR, LF) removed, each run of inner
    /// spaces made one.
    static func canonicalValue(_ value: String) -> [UInt8] {
        let isWhite = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        let bytes = Array(value.utf8)
        guard let first = bytes.firstIndex(where: { !isWhite($0) }), let last = bytes.lastIndex(where: { !isWhite($0) }) else { return [] }
        var out: [UInt8] = []
        out.reserveCapacity(last - first + 1)
        for byte in bytes[first...last] where !(byte == 0x20 && out.last == 0x20) {
            out.append(byte)
        }
        return out
    }
}
