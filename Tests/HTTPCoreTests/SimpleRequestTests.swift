import NIOCore
import Testing

@testable import HTTPCore

/// The plain-request reader in front of NIO's decoder: what it reads, what it leaves to NIO, and that everything it
/// reads NIO reads the same way (``SimpleRequestDifferentialTests``).
@Suite struct SimpleRequestTests {
    /// The service's rule, as `tiler serve` gives it: every target but the IIIF service's is read by the simple reader.
    static func takes(_ target: UnsafeRawBufferPointer) -> Bool { !target.starts(with: "/iiif/".utf8) }

    static func scan(_ text: String, maxHeadBytes: Int = 16384) -> SimpleRequest.Scan {
        Array(text.utf8).withUnsafeBytes { SimpleRequest.scan($0, maxHeadBytes: maxHeadBytes, takes: Self.takes) }
    }

    @Test func readsWhatWrkCurlAndBrowsersSend() {
        let curl = "GET /images/a_files/3/1_2.jpg HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n"
        #expect(
            Self.scan(curl)
                == .request(
                    SimpleRequest(uri: "/images/a_files/3/1_2.jpg", isHead: false, isHTTP10: false, keepAlive: true, ifNoneMatch: nil),
                    length: curl.utf8.count))
        let browser =
            "GET /api/images/a/visible?x=0&y=0&width=800&height=600&zoomScale=0.25 HTTP/1.1\r\nHost: localhost:8080\r\n"
            + "Connection: keep-alive\r\nsec-ch-ua: \"Chromium\";v=\"120\"\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\n"
            + "Accept: image/avif,image/webp,*/*;q=0.8\r\nReferer: http://localhost:8080/\r\nAccept-Encoding: gzip, deflate, br\r\n"
            + "Accept-Language: en-US,en;q=0.9\r\nIf-None-Match:   \"2c5f-6b016c12.39627a9f\"  \r\nCookie: a=b; c=d\r\n\r\n"
        guard case .request(let request, let length) = Self.scan(browser) else {
            Issue.record("browser request not read")
            return
        }
        #expect(length == browser.utf8.count)
        #expect(request.uri == "/api/images/a/visible?x=0&y=0&width=800&height=600&zoomScale=0.25")
        #expect(request.keepAlive && !request.isHead && !request.isHTTP10)
        #expect(request.ifNoneMatch == "\"2c5f-6b016c12.39627a9f\"")
    }

    @Test(arguments: [
        ("HTTP/1.1", "", true), ("HTTP/1.1", "Connection: close\r\n", false), ("HTTP/1.1", "connection: CLOSE\r\n", false),
        ("HTTP/1.1", "Connection: keep-alive\r\n", true), ("HTTP/1.0", "", false), ("HTTP/1.0", "Connection: Keep-Alive\r\n", true),
        ("HTTP/1.0", "Connection: close\r\n", false), ("HTTP/1.1", "Connection: , close ,\r\n", false),
    ])
    func keepAliveFollowsVersionAndConnection(version: String, header: String, keepAlive: Bool) {
        let text = "HEAD /healthz \(version)\r\nHost: t\r\n\(header)\r\n"
        guard case .request(let request, _) = Self.scan(text) else {
            Issue.record("not read: \(text)")
            return
        }
        #expect(request.keepAlive == keepAlive)
        #expect(request.isHead)
        #expect(request.isHTTP10 == (version == "HTTP/1.0"))
    }

    /// A header name may hold exactly RFC 9110's `tchar` bytes: with any other byte (but `:`, which ends the name)
    /// the request is NIO's.
    @Test func headerNamesAreTokens() {
        let tchar = Set("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)
        for byte in UInt8.min...UInt8.max where byte != UInt8(ascii: ":") {
            let head = Array("GET /a.dzi HTTP/1.1\r\nHost: h\r\nX".utf8) + [byte] + Array("Y: v\r\n\r\n".utf8)
            let scan = head.withUnsafeBytes { SimpleRequest.scan($0, maxHeadBytes: 16384, takes: Self.takes) }
            if tchar.contains(byte) {
                #expect(
                    scan
                        == .request(
                            SimpleRequest(uri: "/a.dzi", isHead: false, isHTTP10: false, keepAlive: true, ifNoneMatch: nil), length: head.count))
            } else {
                #expect(scan == .unsupported, "byte \(byte)")
            }
        }
    }

    @Test func theFirstIfNoneMatchCounts() {
        guard case .request(let request, _) = Self.scan("GET / HTTP/1.1\r\nHost: t\r\nIF-NONE-MATCH: \"a\"\r\nIf-None-Match: \"b\"\r\n\r\n") else {
            Issue.record("not read")
            return
        }
        #expect(request.ifNoneMatch == "\"a\"")
    }

    @Test func everyPrefixOfAHeadIsIncomplete() {
        let text = "GET /images/a.dzi HTTP/1.1\r\nHost: t\r\nIf-None-Match: \"x\"\r\n\r\n"
        let bytes = Array(text.utf8)
        for count in 0..<bytes.count {
            let scan = bytes[..<count].withUnsafeBytes { SimpleRequest.scan($0, maxHeadBytes: 16384, takes: Self.takes) }
            #expect(scan == .incomplete, "\(count) bytes")
        }
    }

    @Test func pipelinedHeadsAreReadOneAtATime() {
        let first = "GET /a HTTP/1.1\r\nHost: t\r\n\r\n"
        guard case .request(let request, let length) = Self.scan(first + "GET /b HTTP/1.1\r\nHost: t\r\n\r\nGARBAGE") else {
            Issue.record("not read")
            return
        }
        #expect(request.uri == "/a" && length == first.utf8.count)
    }

    /// Everything outside the plain form goes to NIO's decoder, which answers (or refuses) it as it always did.
    @Test(arguments: [
        "POST /a HTTP/1.1\r\n\r\n", "get /a HTTP/1.1\r\n\r\n", "OPTIONS /a HTTP/1.1\r\n\r\n", "GET  /a HTTP/1.1\r\n\r\n",
        "GET http://h/a HTTP/1.1\r\n\r\n", "GET * HTTP/1.1\r\n\r\n", "GET /a HTTP/2.0\r\n\r\n", "GET /a HTTP/1.1 \r\n\r\n",
        "GET /a\r\n\r\n", "GET /a HTTP/1.1\n\n", "GET /a HTTP/1.1\r\nHost: t\n\r\n", "GET /a HTTP/1.1\r\nHost: t\r\n folded\r\n\r\n",
        "GET /a HTTP/1.1\r\nHost : t\r\n\r\n", "GET /a HTTP/1.1\r\n: t\r\n\r\n", "GET /a HTTP/1.1\r\nHost t\r\n\r\n",
        "GET /a HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "GET /a HTTP/1.1\r\ncontent-length: 5\r\n\r\nhello",
        "GET /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "GET /a HTTP/1.1\r\nExpect: 100-continue\r\n\r\n",
        "GET /a HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", "GET /a HTTP/1.1\r\nConnection: TE\r\n\r\n",
        "GET /a HTTP/1.1\r\nConnection: close, keep-alive\r\n\r\n", "GET /a HTTP/1.1\r\nX: caf\u{E9}\r\n\r\n",
        "GET /a HTTP/1.1\r\nX: a\u{0}b\r\n\r\n", "GET /a\u{7F} HTTP/1.1\r\n\r\n", "GET /caf\u{E9} HTTP/1.1\r\n\r\n",
        "GET /iiif/3/a/info.json HTTP/1.1\r\n\r\n", "\r\nGET /a HTTP/1.1\r\n\r\n",
        "GET /a HTTP/1.1\r\nX: 1\r\r\n\r\n", "GET /a HTTP/1.1\r\n" + (0..<101).map { "X-\($0): 1\r\n" }.joined() + "\r\n",
        // A Host missing from HTTP/1.1 or given twice: NIO's decoder reads it, and the handler answers 400.
        "GET /a HTTP/1.1\r\nAccept: */*\r\n\r\n", "GET /a HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n", "GET /a HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n",
    ])
    func unusualRequestsAreLeftToNIO(text: String) {
        #expect(Self.scan(text) == .unsupported)
    }

    @Test func http10MayOmitHost() {
        guard case .request(let request, _) = Self.scan("GET /a HTTP/1.0\r\n\r\n") else {
            Issue.record("not read")
            return
        }
        #expect(request.isHTTP10 && !request.keepAlive)
    }

    @Test func headsLongerThanTheLimitAreLeftToNIO() {
        let text = "GET /a HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "a", count: 200))\r\n\r\n"
        #expect(Self.scan(text, maxHeadBytes: 100) == .unsupported)
        #expect(Self.scan(String(text.prefix(150)), maxHeadBytes: 100) == .unsupported)
        #expect(Self.scan(String(text.prefix(50)), maxHeadBytes: 100) == .incomplete)
        #expect(Self.scan(text, maxHeadBytes: text.utf8.count) != .unsupported)
    }
}
