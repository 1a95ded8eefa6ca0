import NIOHTTP1
import Testing

@testable import TileServer

/// What a proxy's forwarding headers may put into the URLs the server writes (no socket needed): valid hosts,
/// schemes and path prefixes only, a scheme or a host alone, and `Forwarded` elements that follow RFC 7239.
@Suite struct ForwardedBaseTests {
    private func base(_ fields: [(String, String)], host: String? = "test") -> String? {
        var headers = HTTPHeaders(fields)
        if let host { headers.add(name: "Host", value: host) }
        return ForwardedBase.of(headers)
    }

    @Test func aSchemeAloneKeepsTheRequestsHost() {
        #expect(base([("X-Forwarded-Proto", "https")]) == "https://test")
        #expect(base([("Forwarded", "proto=https")]) == "https://test")
        #expect(base([("Forwarded", "for=192.0.2.1;proto=HTTPS")], host: "a.example:8443") == "https://a.example:8443")
        // Nothing forwarded: the caller falls back to Host itself.
        #expect(base([]) == nil)
        #expect(base([("X-Forwarded-Proto", "https")], host: nil) == nil)
    }

    @Test func invalidHostsAreIgnored() {
        for host in [
            "2001:db8::1", "evil.example:99999", "evil.example:0", "evil.example:", "evil.example:8o", "//evil.example", "evil.example/x", "a..b",
            ".example", "a b", "[2001:db8::1", "[::1]x", "[zz::1]", "évil.example", String(repeating: "a", count: 64) + ".example",
        ] {
            #expect(base([("X-Forwarded-Host", host)]) == nil, "X-Forwarded-Host: \(host)")
            #expect(base([("Forwarded", "host=\"\(host)\"")]) == nil, "Forwarded: host=\(host)")
        }
        #expect(base([("X-Forwarded-Host", "[2001:db8::1]:8443")]) == "http://[2001:db8::1]:8443")
        #expect(base([("X-Forwarded-Host", "tiles-1.example.org:65535")]) == "http://tiles-1.example.org:65535")
        #expect(base([("X-Forwarded-Host", "192.0.2.7")]) == "http://192.0.2.7")
        // An invalid scheme is ignored on its own: the valid host stays.
        #expect(base([("X-Forwarded-Host", "a.example"), ("X-Forwarded-Proto", "javascript")]) == "http://a.example")
    }

    @Test func prefixesArePlainPaths() {
        for prefix in ["//evil.example", "/../", "/a/../b", "/a/./b", "/%2e%2e/x", "/a//b", "tiles", "/a?b", "/a#b", "/a b", "/%zz", "/%4"] {
            #expect(base([("X-Forwarded-Prefix", prefix)]) == nil, "X-Forwarded-Prefix: \(prefix)")
        }
        #expect(base([("X-Forwarded-Prefix", "/tiles/")]) == "http://test/tiles")
        #expect(base([("X-Forwarded-Prefix", "/a%20b/c~d")]) == "http://test/a%20b/c~d")
        #expect(base([("X-Forwarded-Prefix", "/")]) == "http://test")
        #expect(base([("X-Forwarded-Prefix", "/x"), ("X-Forwarded-Proto", "https")], host: "a.example") == "https://a.example/x")
    }

    @Test func forwardedWithARepeatedParameterIsIgnored() {
        #expect(base([("Forwarded", "host=a.example;host=b.example")]) == nil)
        #expect(base([("Forwarded", "proto=https;Proto=http")]) == nil)
        #expect(base([("Forwarded", "host=a.example;proto")]) == nil, "a pair without =")
        // Ignored, so the X- headers speak.
        #expect(base([("Forwarded", "host=a.example;host=b.example"), ("X-Forwarded-Host", "c.example")]) == "http://c.example")
        // Only the first element counts; the next one may repeat parameters.
        #expect(base([("Forwarded", "host=a.example;proto=https, host=b.example;host=c.example")]) == "https://a.example")
    }

    @Test func requestHostsAreCheckedTheSameWay() {
        #expect(ForwardedBase.requestHost(HTTPHeaders([("Host", "example.org:8080")])) == "example.org:8080")
        for host in ["a/b\"c", "evil.example:99999", "", "2001:db8::1"] {
            #expect(ForwardedBase.requestHost(HTTPHeaders([("Host", host)])) == nil, "Host: \(host)")
        }
    }

    @Test func publicURLsAreCheckedAsURLs() {
        for url in ["https://images.example.org", "http://a.example:8080/tiles", "https://[2001:db8::1]"] {
            #expect(IIIFConfiguration.isPublicURL(url), "\(url)")
        }
        for url in [
            "images.example.org", "https://", "https://a.example/", "https://a.example?x", "ftp://a.example", "https://a.example/../x", "https://a b",
        ] {
            #expect(!IIIFConfiguration.isPublicURL(url), "\(url)")
        }
    }
}
