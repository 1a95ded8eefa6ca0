import Foundation
import Testing

@testable import JSONText

@Suite struct JSONWriterTests {
    @Test(arguments: [0, 1, -1, 9, 10, 99, 100, 12_345, -98_765, 999_999_999_999, 1_000_000_000_000_000_000, Int.max, Int.min])
    func integersPrintLikeDescription(value: Int) {
        var writer = JSONWriter(capacity: 0)
        writer.integer(value)
        #expect(writer.text == String(value))
    }

    /// Two digits a step: every digit count, each side of every power of ten, both signs, and seeded values.
    @Test func integersAtEveryDigitCountPrintLikeDescription() {
        var values: [Int] = []
        var power = 1
        for _ in 0..<19 {
            values += [power - 1, power, power + 1, 2 * power - 1, 5 * power + 3]
            if power <= Int.max / 10 { power *= 10 }
        }
        var state: UInt64 = 2_026
        for _ in 0..<10_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Int(truncatingIfNeeded: state) >> Int(state % 63))
        }
        var writer = JSONWriter(capacity: 0)
        var expected = ""
        for value in values + values.map({ $0 == .min ? .max : -$0 }) {
            writer.integer(value)
            writer.raw(",")
            expected += "\(value),"
        }
        #expect(writer.text == expected)
    }

    @Test(arguments: [
        0.0, -0.0, 1, -3, 4096, 0.25, 1.0 / 3, 1e-7, 4.656612873077393e-10, 9_007_199_254_740_991, 9_007_199_254_740_992, 1e300,
        .leastNonzeroMagnitude,
    ])
    func numbersReadBackExactlyWithoutTrailingFraction(value: Double) throws {
        var writer = JSONWriter(capacity: 0)
        writer.number(value)
        let text = writer.text
        #expect(try JSONDecoder().decode(Double.self, from: Data(text.utf8)) == value)
        #expect(!text.hasSuffix(".0"))
        if value == value.rounded() && abs(value) < 9_007_199_254_740_992 { #expect(text == String(Int(value))) }
    }

    @Test func growsPastItsInitialCapacity() {
        var writer = JSONWriter(capacity: 1)
        for index in 0..<1_000 {
            writer.raw(",")
            writer.integer(index)
        }
        #expect(writer.text == (0..<1_000).map { ",\($0)" }.joined())
        #expect(writer.byteCount == writer.text.utf8.count)
    }

    @Test func stringsEscapeWhatJSONAndJavaScriptNeed() throws {
        let value = "\"\\/\u{8}\u{C}\n\r\t\u{0}\u{1F} é 😀 \u{2028}\u{2029}\u{E2}\u{80}"
        var writer = JSONWriter(capacity: 4)
        writer.string(value)
        #expect(try JSONDecoder().decode(String.self, from: Data(writer.text.utf8)) == value)
        #expect(writer.text.hasPrefix(#""\"\\/\u0008\u000c\n\r\t\u0000\u001f é 😀 \u2028\u2029"#))
    }
}

@Suite struct JSONWriterStructureTests {
    @Test func structuredWritingPlacesCommasAndNests() throws {
        let text = JSONWriter.text { out in
            out.openObject()
            out.member("name", "a/b \"c\"")
            out.member("width", 4096)
            out.member("scale", 0.5)
            out.member("missing", nil as Int?)
            out.member("ok", true)
            out.key("levels")
            out.openArray()
            for level in 0..<3 {
                out.openObject()
                out.member("level", level)
                out.closeObject()
            }
            out.value("end")
            out.closeArray()
            out.key("empty")
            out.openArray()
            out.closeArray()
            out.closeObject()
        }
        #expect(
            text
                == #"{"name":"a/b \"c\"","width":4096,"scale":0.5,"missing":null,"ok":true,"levels":[{"level":0},{"level":1},{"level":2},"end"],"empty":[]}"#
        )
        #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
    }

    @Test func slashesAreNotEscaped() {
        #expect(JSONWriter.text { $0.value("/images/a_files/") } == #""/images/a_files/""#)
    }
}
