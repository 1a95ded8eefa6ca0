import Testing

@testable import HTTPCore
@testable import TileServer
@testable import TileSources

/// The pieces between the decoder and the routes: target validation, route matching, queries, ETags, dates.
@Suite struct RequestParsingTests {
    @Test(arguments: [
        ("/images/a.dzi", "/images/a.dzi", ""),
        ("/api/images/a/visible?x=1&y=2", "/api/images/a/visible", "x=1&y=2"),
        ("/images/with%20space.dzi", "/images/with space.dzi", ""),
        ("/images/%252e%252e.dzi", "/images/%2e%2e.dzi", ""),
        ("/images/caf%C3%A9.dzi", "/images/café.dzi", ""),
        ("/a/b/", "/a/b/", ""),
        ("/", "/", ""),
        ("/a?", "/a", ""),
        ("/a?b?c", "/a", "b?c"),
    ])
    func validTargetsDecodeOnce(uri: String, path: String, query: String) throws {
        let target = try RequestTarget(uri, maxPathBytes: 100)
        #expect(target.path == path)
        #expect(target.query == query)
    }

    @Test(arguments: [
        "", "*", "images/a.dzi", "http://host/a", "/a/../b", "/..", "/.", "/a/./b", "/a//b", "//", "/%2e%2e/b", "/%2E./b",
        "/a%2fb", "/a%2Fb", "/a%00b", "/a%0ab", "/a\u{01}b", "/a\\b", "/a%5cb", "/a#b", "/a%zzb", "/a%2", "/a%", "/a%ff",
        "/a%c0%ae", "/" + String(repeating: "x", count: 100), "/" + String(repeating: "%41", count: 40),
    ])
    func invalidTargetsAre400(uri: String) {
        let error = #expect(throws: RequestError.self) { try RequestTarget(uri, maxPathBytes: 100) }
        #expect(error?.status == .badRequest)
    }

    /// Every ASCII byte inside a segment: refused exactly when the rules refuse it (the plain-path table and the
    /// byte-by-byte rules agree), and the message names the problem either way.
    @Test func everyASCIIByteInASegmentIsJudgedByTheRules() {
        let refused: [UInt8: String] = [0: "NUL byte", 0x7F: "control character", UInt8(ascii: "\\"): "backslash", UInt8(ascii: "#"): "fragment"]
        for byte in UInt8(0)...0x7F where byte != UInt8(ascii: "?") && byte != UInt8(ascii: "%") {
            let uri = "/a" + String(UnicodeScalar(byte)) + "b"
            let expected = refused[byte] ?? (byte < 0x20 ? "control character" : nil)
            do {
                _ = try RequestTarget(uri, maxPathBytes: 100)
                #expect(expected == nil, "byte \(byte) accepted")
            } catch {
                #expect(expected.map { error.message.contains($0) } == true, "byte \(byte): \(error.message)")
            }
        }
        for (uri, valid) in [("/...", true), ("/a/..b", true), ("/a/b./c", true), ("/a/", true), ("/a/.", false), ("/a/..", false), ("/./a", false)] {
            #expect(((try? RequestTarget(uri, maxPathBytes: 100)) != nil) == valid, "\(uri)")
        }
    }

    @Test func routesMatchTheirPatterns() throws {
        guard case .tile(let name, let tile, let format) = Route(path: "/images/maps/city_files/12/3_45.jpeg") else {
            Issue.record("not a tile")
            return
        }
        #expect(name == "maps/city" && format == "jpeg" && tile == TileAddress(level: 12, column: 3, row: 45))
        guard case .descriptor(let descriptor) = Route(path: "/images/maps/city.dzi"),
            case .visible(let visible) = Route(path: "/api/images/a/b/visible")
        else {
            Issue.record("descriptor or visible not matched")
            return
        }
        #expect(descriptor == "maps/city" && visible == "a/b")
        let labels: [(String, RouteLabel)] = [
            ("/api/images", .images), ("/healthz", .health), ("/metrics", .metrics), ("/", .staticFile), ("/js/app.js", .staticFile),
            ("/images/a_files/1/01_2.jpg", .invalid), ("/images/a_files/1/1_2", .invalid), ("/images/_files/1/1_2.jpg", .invalid),
            ("/images/a_files/1/1_2.", .invalid), ("/images/.dzi", .invalid), ("/api/images/visible", .invalid), ("/api", .invalid),
            ("/images/a_files/1234567890/1_2.jpg", .invalid),
        ]
        for (path, label) in labels {
            #expect(Route(path: path[...]).label == label, "\(path)")
        }
    }

    @Test func queryValues() {
        let query = QueryString(text: "x=1.5&y=-2&empty=&flag&x=9&enc=%31%32&bad=%zz&plus=+3")
        #expect(query.value(named: "x") == "1.5")
        #expect(query.value(named: "y") == "-2")
        #expect(query.value(named: "empty") == "")
        #expect(query.value(named: "flag") == "")
        #expect(query.value(named: "enc") == "12")
        #expect(query.value(named: "bad") == "%zz")
        #expect(query.value(named: "plus") == "+3")
        #expect(query.value(named: "missing") == nil)
    }

    @Test func ifNoneMatchUsesWeakComparison() {
        let etag = Array("\"abc-1.2\"".utf8)
        for header in ["\"abc-1.2\"", "W/\"abc-1.2\"", "\"x\", \"abc-1.2\"", " \"x\" ,W/\"abc-1.2\" ", "*"] {
            #expect(ETagMatch.matches(header, etag: etag), "\(header)")
        }
        for header in ["\"abc-1.3\"", "abc-1.2", "", "\"abc-1.2", "W/ \"abc-1.2\""] {
            #expect(!ETagMatch.matches(header, etag: etag), "\(header)")
        }
    }

    @Test func dateHeaderIsIMFFixdate() {
        #expect(DateHeader.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(DateHeader.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(DateHeader.format(1_709_251_199) == "Thu, 29 Feb 2024 23:59:59 GMT")
    }

    @Test func percentEncodingRoundTrips() throws {
        for name in ["plain", "with space", "100%", "a?b#c", "café/été", "x+y"] {
            let encoded = PercentEncoding.encodePath("/" + name)
            #expect(try RequestTarget(encoded, maxPathBytes: 200).path == "/" + name)
        }
    }
}
