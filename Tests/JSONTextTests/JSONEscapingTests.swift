import Foundation
import Testing

@testable import JSONText

/// The one escaping rule: what is escaped and how, runs written without copies, and every result valid JSON that
/// reads back to the text.
@Suite struct JSONEscapingTests {
    static func escaped(_ text: String) -> (text: String, writes: Int) {
        var out: [UInt8] = []
        var writes = 0
        var text = text
        text.withUTF8 { bytes in
            JSONEscaping.escape(bytes) { chunk in
                out.append(contentsOf: chunk)
                writes += 1
            }
        }
        return (String(decoding: out, as: UTF8.self), writes)
    }

    @Test func textThatNeedsNoEscapeIsOneWrite() {
        let plain = "/images/maps/city_files/12/3_4.jpg?x=1 é 😀 \u{E2}x"
        #expect(Self.escaped(plain) == (plain, 1))
        #expect(Self.escaped("").writes == 0)
    }

    @Test(arguments: [
        ("a\"b", #"a\"b"#), ("a\\b", #"a\\b"#), ("\n\r\t", #"\n\r\t"#), ("\u{0}\u{1}\u{1F}", #"\u0000\u0001\u001f"#),
        ("del\u{7F}", #"del\u007f"#), ("\u{2028}x\u{2029}", #"\u2028x\u2029"#), ("\u{1B}[31m", #"\u001b[31m"#),
    ])
    func specialCharacters(text: String, expected: String) {
        #expect(Self.escaped(text).text == expected)
    }

    @Test func everyResultReadsBackAsTheText() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let scalars = (0..<24).compactMap { _ -> Unicode.Scalar? in
                let pick = Int.random(in: 0..<4, using: &generator)
                let value: UInt32 = [
                    UInt32.random(in: 0..<0x80, using: &generator), 0x2028, 0x2029, UInt32.random(in: 0x80..<0xD800, using: &generator),
                ][pick]
                return Unicode.Scalar(value)
            }
            let text = String(String.UnicodeScalarView(scalars))
            let json = "[\"" + Self.escaped(text).text + "\"]"
            #expect(!json.contains("\n"))
            let decoded = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]
            #expect(decoded == [text])
        }
    }
}
