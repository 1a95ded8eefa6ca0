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
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", civil.year, civil.month, civil.day, civil.hour, civil.minute, civil.second)
    }
}
