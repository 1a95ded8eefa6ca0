import NIOCore
import Testing

@testable import HTTPCore

/// `Range` and `If-Range` evaluated without a socket (RFC 9110 §14).
@Suite struct ByteRangeTests {
    static let etag = ByteBuffer(string: "\"abc-1.2\"")

    static func evaluate(_ range: String?, ifRange: String? = nil, size: Int = 1000) -> ByteRange {
        ByteRange.evaluate(range: range, ifRange: ifRange, etag: etag.readableBytesView, size: size)
    }

    @Test(arguments: [
        ("bytes=0-99", ByteRange.partial(0..<100)), ("bytes=100-", .partial(100..<1000)), ("bytes=-10", .partial(990..<1000)),
        ("bytes=990-5000", .partial(990..<1000)), ("bytes=999-999", .partial(999..<1000)), ("bytes=-5000", .partial(0..<1000)),
        ("bytes= 5 - 9 ", .partial(5..<10)), ("bytes=1000-", .unsatisfiable), ("bytes=4000-5000", .unsatisfiable), ("bytes=-0", .unsatisfiable),
        // Numbers past Int's range are past any file's end: a start there is unsatisfiable like any other.
        ("bytes=9223372036854775807-", .unsatisfiable), ("bytes=9223372036854775808-", .unsatisfiable),
        ("bytes=18446744073709551616-", .unsatisfiable), ("bytes=99999999999999999999999999999999-1", .whole),
        ("bytes=0-99999999999999999999", .partial(0..<1000)), ("bytes=-99999999999999999999", .partial(0..<1000)),
    ])
    func singleRanges(range: String, expected: ByteRange) {
        #expect(Self.evaluate(range) == expected, "\(range)")
    }

    @Test(arguments: [
        "bytes=0-1,5-9", "bytes=9-5", "bytes=a-b", "bytes=-", "bytes=", "items=0-9", "0-9", "bytes=--5",
    ])
    func ignoredRangesGetTheWholeFile(range: String) {
        #expect(Self.evaluate(range) == .whole, "\(range)")
    }

    @Test func ifRangeAppliesTheRangeOnlyForTheCurrentStrongTag() {
        #expect(Self.evaluate("bytes=0-9", ifRange: "\"abc-1.2\"") == .partial(0..<10))
        #expect(Self.evaluate("bytes=0-9", ifRange: "\"other\"") == .whole)
        #expect(Self.evaluate("bytes=0-9", ifRange: "W/\"abc-1.2\"") == .whole)
        #expect(Self.evaluate("bytes=0-9", ifRange: "Tue, 24 Nov 2026 06:00:00 GMT") == .whole)
        #expect(Self.evaluate(nil, ifRange: "\"abc-1.2\"") == .whole)
    }

    @Test func anEmptyFileHasNoSatisfiableRange() {
        #expect(Self.evaluate("bytes=0-", size: 0) == .unsatisfiable)
        #expect(Self.evaluate("bytes=-5", size: 0) == .unsatisfiable)
    }
}
