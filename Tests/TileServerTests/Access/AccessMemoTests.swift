import NIOCore
import Testing

@testable import TileServer

/// The per-connection memo of verified signatures and tokens: exact matches only, a bounded size, and on a live
/// connection, a remembered signature never opens another name, query or expiry.
@Suite struct AccessMemoTests {
    @Test func findsOnlyWhatWasRememberedExactly() {
        let memo = AccessMemo()
        memo.rememberSigned(name: "a/one@0123456789ab", query: "exp=10&kid=k1&sig=abc", expires: 10)
        #expect(memo.signedExpiry(name: "a/one@0123456789ab", query: "exp=10&kid=k1&sig=abc") == 10)
        #expect(memo.signedExpiry(name: "a/one@0123456789ab", query: "exp=10&kid=k1&sig=abd") == nil)
        #expect(memo.signedExpiry(name: "a/two@0123456789ab", query: "exp=10&kid=k1&sig=abc") == nil)
        #expect(memo.signedExpiry(name: "a/one@0123456789ab", query: "exp=10&kid=k1&sig=abc&x=1") == nil)
        for index in 0..<AccessMemo.capacity {
            memo.rememberSigned(name: "n\(index)", query: "q", expires: index)
        }
        #expect(memo.signedExpiry(name: "a/one@0123456789ab", query: "exp=10&kid=k1&sig=abc") == nil, "the oldest entry was replaced")
        #expect(memo.signedExpiry(name: "n3", query: "q") == 3)
        let token = AccessToken(images: "a/*", expires: 5, scope: .read, keyID: "k1")
        memo.rememberToken("tiler1.k1.c.s", token)
        #expect(memo.token("tiler1.k1.c.s") == token && memo.token("tiler1.k1.c.t") == nil)
        var made = 0
        for _ in 0..<3 {
            _ = memo.tileQuery(image: 1, window: 7) {
                made += 1
                return "q"
            }
        }
        _ = memo.tileQuery(image: 1, window: 8) {
            made += 1
            return "r"
        }
        #expect(made == 2)
        let hit = memo.signedTileLines(expires: 100, now: 40, hit: true)
        #expect(String(buffer: hit) == "Cache-Control: public, max-age=60\r\nX-Cache: hit\r\n")
        #expect(String(buffer: memo.signedTileLines(expires: 100, now: 41, hit: false)) == "Cache-Control: public, max-age=59\r\nX-Cache: miss\r\n")
    }

    @Test func aRememberedSignatureOpensNothingElseOnItsConnection() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let token = try fixture.token("a/*")
            let query = try PrivateImageTests.tileQuery(server, "a/one", token: token)
            let version = try PrivateImageTests.version(server, "a/one", token: token)
            let tile = "/images/a/one@\(version)_files/9/0_0.jpg"
            let signature = PrivateImageTests.signature(of: query)
            var characters = Array(signature)
            characters[3] = characters[3] == "A" ? "B" : "A"
            let connection = try RawHTTPConnection(port: server.port)
            let sequence: [(String, [String], Int)] = [
                (tile + "?" + query, [], 200), (tile + "?" + query, [], 200),
                (tile + "?" + PrivateImageTests.replacingSignature(of: query, with: String(characters)), [], 401),
                ("/images/a/two@\(version)_files/9/0_0.jpg?" + query, [], 401), (tile, [], 401),
                (tile.replacingOccurrences(of: "0_0", with: "1_0") + "?" + query, [], 200),
                ("/images/a/one.dzi", ["Authorization: Bearer \(token)"], 200), ("/images/a/one.dzi", ["Authorization: Bearer \(token)"], 200),
                ("/images/b/x.dzi", ["Authorization: Bearer \(token)"], 403), ("/images/a/one.dzi", [], 401),
            ]
            for (target, headers, status) in sequence {
                try connection.request(target, headers: headers)
                let answer = try connection.readResponse()
                #expect(answer.status == status, "\(target) \(headers)")
            }
        }
    }
}
