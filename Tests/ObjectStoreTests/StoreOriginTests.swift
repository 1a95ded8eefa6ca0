import Testing

@testable import ObjectStore

@Suite struct StoreOriginTests {
    @Test func splitsOriginAndTarget() throws {
        let (origin, target) = try #require(StoreOrigin.split("http://127.0.0.1:8080/bucket/a%20b.szi?x=1"))
        #expect(origin.scheme == "http" && origin.host == "127.0.0.1" && origin.port == 8080)
        #expect(origin.hostHeader == "127.0.0.1:8080" && origin.prefix == "http://127.0.0.1:8080")
        #expect(target == "/bucket/a%20b.szi?x=1")
        #expect(origin.target(in: "http://127.0.0.1:8080/other") == "/other")
    }

    @Test func defaultPortsIPv6AndBareOrigins() throws {
        #expect(StoreOrigin.split("https://s3.example.com")?.origin.port == 443)
        #expect(StoreOrigin.split("https://s3.example.com")?.target == "/")
        #expect(StoreOrigin.split("http://h?list-type=2")?.target == "/?list-type=2")
        let (v6, _) = try #require(StoreOrigin.split("http://[::1]:9000/b"))
        #expect(v6.host == "::1" && v6.port == 9000 && v6.hostHeader == "[::1]:9000")
    }

    @Test func refusesOtherForms() {
        for url in ["ftp://h/x", "http://", "http://user@h/x", "http://h/x#frag", "http://h:99999/x", "http://h:port/x", "http://[::1/x"] {
            #expect(StoreOrigin.split(url) == nil, "\(url)")
        }
    }

    /// A URL of another origin, even one that starts the same, is not this origin's.
    @Test func targetsOfOtherOriginsAreNone() throws {
        let (origin, _) = try #require(StoreOrigin.split("http://h:80/a"))
        #expect(origin.target(in: "http://h:8080/a") == nil)
        #expect(origin.target(in: "http://h:80") == "/")
        #expect(origin.target(in: "http://h:80?q") == "/?q")
        #expect(origin.target(in: "http://h:80/a#b") == nil)
        #expect(origin.target(in: "https://h:80/a") == nil)
    }
}
