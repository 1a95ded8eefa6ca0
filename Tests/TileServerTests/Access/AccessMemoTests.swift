import NIOCore
import Testing

@testable import TileServer

/// The per-connection memo of verified signatures, tokens and grants: exact matches only (secrets compared in constant
/// time), a bounded size, and on a live connection, a remembered signature or grant never opens another name,
/// credential, query or expiry.
@Suite struct AccessMemoTests {
    @Test func findsOnlyWhatWasRememberedExactly() {
        let memo = AccessMemo()
        memo.rememberSigned(name: "a/one@0123456789ab", query: "sig=abc", catalogVersion: 1, expires: 10)
        #expect(memo.signedExpiry(name: "a/one@0123456789ab", query: "sig=abc", catalogVersion: 1) == 10)
        #expect(memo.signedExpiry(name: "a/one@0123456789ab", query: "sig=abd", catalogVersion: 1) == nil)
        #expect(memo.signedExpiry(name: "a/two@0123456789ab", query: "sig=abc", catalogVersion: 1) == nil)
        #expect(memo.signedExpiry(name: "a/one@0123456789ab", query: "sig=abc&x=1", catalogVersion: 1) == nil)
        #expect(
            memo.signedExpiry(name: "a/one@0123456789ab", query: "sig=abc", catalogVersion: 2) == nil, "checked afresh after a rescan")
        for index in 0..<AccessMemo.capacity {
            memo.rememberSigned(name: "n\(index)", query: "q", catalogVersion: 1, expires: index)
        }
        #expect(
            memo.signedExpiry(name: "a/one@0123456789ab", query: "sig=abc", catalogVersion: 1) == nil, "the oldest entry was replaced")
        #expect(memo.signedExpiry(name: "n3", query: "q", catalogVersion: 1) == 3)
        let token = AccessToken(images: "a/*", expires: 5, scope: .read, keyID: "k1")
        memo.rememberToken("tiler1.k1.c.s", token)
        #expect(memo.token("tiler1.k1.c.s") == token && memo.token("tiler1.k1.c.t") == nil)
        var made = 0
        for _ in 0..<3 {
            _ = memo.signedTiles(image: 1, window: 7) {
                made += 1
                return ("q", ".jpg?q")
            }
        }
        let next = memo.signedTiles(image: 1, window: 8) {
            made += 1
            return ("r", ".jpg?r")
        }
        #expect(made == 2 && next.query == "r" && next.urlSuffix == ".jpg?r")
        let hit = memo.signedTileLines(expires: 100, now: 40, hit: true)
        #expect(String(buffer: hit) == "Cache-Control: public, max-age=59\r\nX-Cache: hit\r\n")
        #expect(String(buffer: memo.signedTileLines(expires: 100, now: 41, hit: false)) == "Cache-Control: public, max-age=58\r\nX-Cache: miss\r\n")
    }

    @Test func aGrantIsFoundOnlyForItsNameCredentialAndCatalogVersion() {
        let memo = AccessMemo()
        let token = AccessToken(images: "a/*", expires: 5, scope: .read, keyID: "k1")
        memo.rememberGrant(name: "a/one", credential: "tiler1.k1.c.s", catalogVersion: 3, token: token)
        #expect(memo.grant(name: "a/one", credential: "tiler1.k1.c.s", catalogVersion: 3) == token)
        #expect(memo.grant(name: "a/one", credential: "tiler1.k1.c.s", catalogVersion: 4) == nil, "the catalog changed")
        #expect(memo.grant(name: "a/two", credential: "tiler1.k1.c.s", catalogVersion: 3) == nil)
        #expect(memo.grant(name: "a/one", credential: "tiler1.k1.c.t", catalogVersion: 3) == nil)
        #expect(memo.grant(name: "a/one", credential: "tiler1.k1.c.s2", catalogVersion: 3) == nil)
        for index in 0..<AccessMemo.capacity {
            memo.rememberGrant(name: "n\(index)", credential: "c", catalogVersion: 3, token: token)
        }
        #expect(memo.grant(name: "a/one", credential: "tiler1.k1.c.s", catalogVersion: 3) == nil, "the oldest entry was replaced")
    }

    @Test func secretsCompareByEveryByte() {
        let secret = "tiler1.k1.eyJpbWciOiJhLyoifQ.c2lnbmF0dXJl"
        #expect(AccessMemo.sameSecret(secret, secret[...]))
        #expect(AccessMemo.sameSecret("", ""))
        // A Substring in the middle of a longer string (its bytes do not start at the string's start).
        let longer = "Bearer " + secret + " trailing"
        let inner = longer.dropFirst(7).dropLast(9)
        #expect(AccessMemo.sameSecret(secret, inner))
        for offset in [0, secret.utf8.count / 2, secret.utf8.count - 1] {
            var bytes = Array(secret.utf8)
            bytes[offset] ^= 0x01
            #expect(!AccessMemo.sameSecret(secret, String(decoding: bytes, as: UTF8.self)[...]), "byte \(offset) differs")
        }
        #expect(!AccessMemo.sameSecret(secret, secret.dropLast()))
        #expect(!AccessMemo.sameSecret(secret, (secret + "x")[...]))
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
            var tokenCharacters = Array(token)
            tokenCharacters[tokenCharacters.count - 5] = tokenCharacters[tokenCharacters.count - 5] == "A" ? "B" : "A"
            let tampered = String(tokenCharacters)
            let writeToken = try fixture.token("a/*", scope: .write)
            func visible(_ name: String) -> String { "/api/images/\(name)/visible?x=0&y=0&width=10&height=10&zoomScale=1" }
            let connection = try RawHTTPConnection(port: server.port)
            let sequence: [(String, [String], Int)] = [
                (tile + "?" + query, [], 200), (tile + "?" + query, [], 200),
                (tile + "?" + PrivateImageTests.replacingSignature(of: query, with: String(characters)), [], 401),
                ("/images/a/two@\(version)_files/9/0_0.jpg?" + query, [], 401), (tile, [], 401),
                (tile.replacingOccurrences(of: "0_0", with: "1_0") + "?" + query, [], 200),
                ("/images/a/one.dzi", ["Authorization: Bearer \(token)"], 200), ("/images/a/one.dzi", ["Authorization: Bearer \(token)"], 200),
                ("/images/b/x.dzi", ["Authorization: Bearer \(token)"], 403), ("/images/a/one.dzi", [], 401),
                // Remembered grants (visible-rect queries): only for the same name and credential.
                (visible("a/one"), ["Authorization: Bearer \(token)"], 200), (visible("a/one"), ["Authorization: bearer \(token)"], 200),
                (visible("a/two"), ["Authorization: BEARER \(token)"], 200), (visible("a/link"), ["Authorization: Bearer \(token)"], 403),
                (visible("b/x"), ["Authorization: Bearer \(token)"], 403),
                (visible("a/one"), [], 401), (visible("a/one"), ["Authorization: Bearer \(tampered)"], 401),
                (visible("a/one"), ["Authorization: Bearer \(writeToken)"], 403), (visible("a/one"), ["Authorization: Basic YTpi"], 400),
                (visible("a/one"), ["Authorization: Bearer \(token)"], 200), (visible("a/one") + "&token=\(token)", [], 200),
            ]
            for (target, headers, status) in sequence {
                try connection.request(target, headers: headers)
                let answer = try connection.readResponse()
                #expect(answer.status == status, "\(target) \(headers)")
            }
        }
    }
}
