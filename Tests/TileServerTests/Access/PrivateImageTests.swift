import Foundation
import Testing

@testable import TileServer

/// Private images over a socket: what a request without a valid credential gets (every refusal of the issue's list),
/// and what a token or signed URL gets.
@Suite struct PrivateImageTests {
    static func bearer(_ token: String) -> [String] { ["Authorization: Bearer \(token)"] }

    /// The tile query the server hands out for `name` with `token`, from its descriptor.
    static func tileQuery(_ server: Server, _ name: String, token: String) throws -> String {
        let answer = try fetch(server, "/images/\(name).dzi", headers: bearer(token))
        #expect(answer.status == 200)
        return try #require(answer.header("Tiler-Tile-Query"))
    }

    static func version(_ server: Server, _ name: String, token: String) throws -> String {
        let list = try #require(try fetch(server, "/api/images", headers: bearer(token)).json() as? [[String: Any]])
        return try #require(list.first { $0["name"] as? String == name }?["version"] as? String)
    }

    @Test func refusesEveryRequestWithoutAValidCredential() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let aToken = try fixture.token("a/*")
            let query = try Self.tileQuery(server, "a/one", token: aToken)
            let version = try Self.version(server, "a/one", token: aToken)
            let tile = "/images/a/one@\(version)_files/9/0_0.jpg"
            let otherKey = try AccessPolicy(
                file: try Self.policy(in: fixture, keyID: "k9"), environment: ProcessInfo.processInfo.environment)
            // One signature character changed (not the last, whose unused bits would make it malformed instead).
            var characters = Array(aToken)
            characters[characters.count - 5] = characters[characters.count - 5] == "A" ? "B" : "A"
            let tampered = String(characters)
            let foreignSignature = fixture.policy.tileQuery(name: "a/two", version: try Self.version(server, "a/two", token: aToken), now: Self.now)
            let oldVersion = fixture.policy.tileQuery(name: "a/one", version: "000000000000", now: Self.now)
            let window = fixture.policy.windowSeconds
            // Expired: its window ended (the URLs of two windows ago); too far ahead: four windows on, which no server
            // whose clock is within a window of this one hands out.
            let expiredSignature = fixture.policy.tileQuery(name: "a/one", version: version, expires: (Self.now / window) * window)
            let farAhead = fixture.policy.tileQuery(name: "a/one", version: version, expires: (Self.now / window + 4) * window)
            let strangerFile = try Self.policy(in: fixture, keyID: "k9", secret: String(repeating: "k9-secret-", count: 4))
            let unknownKey = try AccessPolicy(file: strangerFile, environment: [:]).tileQuery(name: "a/one", version: version, now: Self.now)
            // (what, target, headers, status)
            let cases: [(String, String, [String], Int)] = [
                ("no token", "/images/a/one.dzi", [], 401),
                ("no token, unknown name", "/images/a/nobody.dzi", [], 401),
                ("no token, visible", "/api/images/a/one/visible?x=0&y=0&width=10&height=10&zoomScale=1", [], 401),
                ("malformed token", "/images/a/one.dzi", Self.bearer("garbage"), 400),
                ("not a bearer", "/images/a/one.dzi", ["Authorization: Basic YTpi"], 400),
                ("unknown key id", "/images/a/one.dzi", Self.bearer(try otherKey.mint(images: "a/*", expires: Self.now + 600, scope: .read)), 401),
                ("bad signature", "/images/a/one.dzi", Self.bearer(tampered), 401),
                ("expired", "/images/a/one.dzi", Self.bearer(try fixture.token("a/*", seconds: -5)), 401),
                ("wrong image", "/images/b/x.dzi", Self.bearer(aToken), 403),
                ("wrong image, unknown name", "/images/b/nobody.dzi", Self.bearer(aToken), 403),
                ("wrong scope", "/images/a/one.dzi", Self.bearer(try fixture.token("a/*", scope: .write)), 403),
                ("a/* on ab", "/images/ab.dzi", Self.bearer(aToken), 403),
                ("a/* on a/../b", "/images/a/../b/x.dzi", Self.bearer(aToken), 400),
                ("a/* on a%2F..%2Fb", "/images/a%2F..%2Fb/x.dzi", Self.bearer(aToken), 400),
                ("a/* on a symlinked name", "/images/a/link.dzi", Self.bearer(aToken), 403),
                ("public name linked to a private image", "/images/pub/link.dzi", [], 401),
                ("public descriptor over a private image's tiles", "/images/pub/fake.dzi", [], 401),
                ("public descriptor over a private image's tiles, a tile", "/images/pub/fake_files/9/0_0.jpg", [], 401),
                ("b/* on a public name over b's tiles", "/images/pub/fake.dzi", Self.bearer(try fixture.token("b/*")), 403),
                ("unsigned tile", tile, [], 401),
                ("unsigned tile, unversioned", "/images/a/one_files/9/0_0.jpg", [], 401),
                ("wrongly signed tile", tile + "?" + query.replacingOccurrences(of: "sig=", with: "sig=A"), [], 400),
                (
                    "tile signed with a wrong signature", tile + "?" + Self.replacingSignature(of: query, with: Self.signature(of: oldVersion)), [],
                    401
                ),
                ("signature for another version", tile + "?" + oldVersion, [], 401),
                ("A's signed URL with B's path", "/images/a/two@\(version)_files/9/0_0.jpg?" + query, [], 401),
                ("B's signature on A's tile", tile + "?" + foreignSignature, [], 401),
                ("expired signature", tile + "?" + expiredSignature, [], 401),
                ("signature expiring too far ahead", tile + "?" + farAhead, [], 401),
                ("signed by a key the policy does not give", tile + "?" + unknownKey, [], 401),
                ("signature cut short", tile + "?" + query.dropLast(2), [], 400),
            ]
            var bodies: [Int: Set<String>] = [:]
            for (what, target, headers, status) in cases {
                let answer = try fetch(server, target, headers: headers)
                #expect(answer.status == status, "\(what): \(answer.status) \(answer.text)")
                #expect(answer.header("Referrer-Policy") == "no-referrer", "\(what)")
                #expect(!answer.text.contains(aToken) && !answer.text.contains("sig="), "\(what)")
                if status == 401 {
                    #expect(answer.header("WWW-Authenticate")?.hasPrefix("Bearer realm=\"tiler\"") == true, "\(what)")
                }
                if what.hasPrefix("no token") || what.hasPrefix("wrong image") { bodies[status, default: []].insert(answer.text) }
            }
            // An unknown name under a private prefix is refused exactly like a known one.
            #expect(bodies[401]?.count == 1 && bodies[403]?.count == 1)
        }
    }

    @Test func aTokenOpensItsImagesAndHandsOutSignedTileURLs() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let token = try fixture.token("a/*")
            let descriptor = try fetch(server, "/images/a/one.dzi", headers: Self.bearer(token))
            #expect(descriptor.status == 200 && descriptor.text.contains("<Image"))
            #expect(descriptor.header("Cache-Control") == "private, no-store")
            let query = try #require(descriptor.header("Tiler-Tile-Query"))
            // The same URLs for every viewer in the window (another token, another key's token).
            let otherToken = try fixture.token("a/one", key: "k2")
            #expect(try Self.tileQuery(server, "a/one", token: otherToken) == query)
            #expect(try fetch(server, "/images/a/one.dzi?token=\(otherToken)").status == 200)
            let version = try Self.version(server, "a/one", token: token)
            var asked = timespec()
            clock_gettime(CLOCK_REALTIME, &asked)
            let tile = try fetch(server, "/images/a/one@\(version)_files/9/1_0.jpg?" + query)
            #expect(tile.status == 200 && tile.body == PyramidFixture.tileBytes(level: 9, column: 1, row: 0, count: 64))
            // The expiry the signature is for: the end of the window after the one it was handed out in.
            let expires = try #require(
                [Int(asked.tv_sec) - 60, Int(asked.tv_sec)].map(fixture.policy.tileExpiry(now:)).first {
                    fixture.policy.tileQuery(name: "a/one", version: version, expires: $0) == query
                })
            let maxAge = try #require(Int(tile.header("Cache-Control")?.replacingOccurrences(of: "public, max-age=", with: "") ?? ""))
            // Never outlives the signature, not by a fraction of a second (a cache keeps it from when it was answered,
            // after it was asked); the window is an hour, so at least an hour remains.
            #expect(Double(maxAge) <= Double(expires) - (Double(asked.tv_sec) + Double(asked.tv_nsec) / 1e9) && maxAge >= 3600 - 2)
            #expect(expires % 3600 == 0)
            // A second request (a cache hit) says the same.
            #expect(try fetch(server, "/images/a/one@\(version)_files/9/1_0.jpg?" + query).header("X-Cache") == "hit")
            // The visible-rect answer's URLs are signed and work as they are.
            let visible = try fetch(server, "/api/images/a/one/visible?x=0&y=0&width=600&height=400&zoomScale=1", headers: Self.bearer(token))
            #expect(visible.status == 200 && visible.header("Cache-Control") == "private, no-store")
            let object = try #require(try visible.json() as? [String: Any])
            let tiles = try #require(object["tiles"] as? [[String: Any]])
            let url = try #require(tiles.first?["url"] as? String)
            #expect(url.hasSuffix(".jpg?" + query))
            #expect(try fetch(server, url).status == 200)
            // URLs handed out in the last window, or by a replica signing with another listed key (a key being rotated
            // in or out), are good to their own expiry.
            let lastWindow = fixture.policy.tileQuery(name: "a/one", version: version, now: Self.now - 3600)
            let lastTile = try fetch(server, "/images/a/one@\(version)_files/9/0_0.jpg?" + lastWindow)
            let lastMaxAge = Int(lastTile.header("Cache-Control")?.replacingOccurrences(of: "public, max-age=", with: "") ?? "")
            #expect(lastTile.status == 200 && (lastMaxAge ?? 3600) < 3600)
            let keyTwo = try AccessPolicy(file: try Self.policy(in: fixture, keyID: "k2", secret: PrivateFixture.keyTwo), environment: [:])
            let keyTwoQuery = keyTwo.tileQuery(name: "a/one", version: version, now: Self.now)
            #expect(try fetch(server, "/images/a/one@\(version)_files/9/0_0.jpg?" + keyTwoQuery).status == 200)
            // A bearer on a tile works too, and is kept out of shared caches.
            let bearerTile = try fetch(server, "/images/a/one_files/9/1_0.jpg", headers: Self.bearer(token))
            #expect(bearerTile.status == 200 && bearerTile.header("Cache-Control") == "private, no-cache")
            // Public images are answered as always.
            let open = try fetch(server, "/images/pub/open_files/9/0_0.jpg")
            #expect(open.status == 200 && open.header("Cache-Control") == "no-cache")
        }
    }

    @Test func theImageListShowsWhatTheTokenGrants() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let list1 = try Self.names(server, [], "")
            #expect(list1 == ["pub/open"])
            let list2 = try Self.names(server, Self.bearer(try fixture.token("a/*")), "")
            #expect(list2 == ["a/one", "a/two", "pub/open"])
            // The symlinked names are granted only with their real name: b/* grants neither a/link nor pub/link.
            let list3 = try Self.names(server, Self.bearer(try fixture.token("b/*")), "")
            #expect(list3 == ["b/x", "pub/open"])
            let list4 = try Self.names(server, Self.bearer(try fixture.token("*")), "")
            #expect(list4 == ["a/link", "a/one", "a/two", "ab", "b/x", "pub/fake", "pub/link", "pub/open"])
            let list5 = try Self.names(server, Self.bearer(try fixture.token("*")), "?offset=1&limit=2")
            #expect(list5 == ["a/one", "a/two"])
        }
    }

    /// A token's list gives each private image it grants the query of its signed tile URLs (`tileQuery`), so that a
    /// list can show their thumbnails; public images have none, and the query opens that image's tiles alone.
    @Test func theListSignsTheTilesOfThePrivateImagesItShows() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let token = try fixture.token("a/*")
            let list = try #require(try fetch(server, "/api/images", headers: Self.bearer(token)).json() as? [[String: Any]])
            let queries = Dictionary(uniqueKeysWithValues: list.map { ($0["name"] as? String ?? "", $0["tileQuery"] as? String) })
            #expect(queries["pub/open"] == .some(nil), "a public image's tiles need no signature")
            let one = try #require(queries["a/one"] ?? nil)
            #expect(one == (try Self.tileQuery(server, "a/one", token: token)), "the query its descriptor hands out")
            let entry = try #require(list.first { $0["name"] as? String == "a/one" })
            let prefix = try #require((entry["dzi"] as? String)?.replacingOccurrences(of: ".dzi", with: "_files/"))
            #expect(try fetch(server, prefix + "0/0_0.jpg?" + one).status == 200)
            let other = try #require(list.first { $0["name"] as? String == "a/two" }?["dzi"] as? String)
            #expect(try fetch(server, other.replacingOccurrences(of: ".dzi", with: "_files/") + "0/0_0.jpg?" + one).status == 401)
            let page = try #require(
                try fetch(server, "/api/images?offset=0&limit=1", headers: Self.bearer(token)).json() as? [[String: Any]])
            #expect(page.first?["tileQuery"] as? String == one)
            #expect(!(try fetch(server, "/api/images").text.contains("tileQuery")), "nothing is signed for no token")
        }
    }

    /// The image list is public: a token that is refused (expired, malformed, of the write scope, by an unknown key)
    /// gets the public images, as no token would, and the refusal in `Tiler-Token-Refused`, so that a viewer can renew
    /// its token while it shows what it may.
    @Test func aRefusedTokenStillGetsThePublicList() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let publicList = try fetch(server, "/api/images")
            #expect(publicList.status == 200 && publicList.header("Tiler-Token-Refused") == nil)
            let cases: [(String, [String], String)] = [
                ("expired", Self.bearer(try fixture.token("a/*", seconds: -5)), "401 the access token or signature has expired"),
                ("expired, in the query", [], "401 the access token or signature has expired"),
                ("write scope", Self.bearer(try fixture.token("*", scope: .write)), "403 the access token's scope does not allow this"),
                ("malformed", Self.bearer("garbage"), "400 the access token or signature is malformed"),
            ]
            for (what, headers, refusal) in cases {
                let target = what.hasSuffix("in the query") ? "/api/images?token=" + (try fixture.token("a/*", seconds: -5)) : "/api/images"
                let answer = try fetch(server, target, headers: headers)
                #expect(answer.status == 200, "\(what): \(answer.status) \(answer.text)")
                #expect(answer.text == publicList.text && answer.header("X-Total-Count") == "1", "\(what): \(answer.text)")
                #expect(answer.header("Tiler-Token-Refused") == refusal, "\(what)")
                #expect(answer.header("Cache-Control") == "private, no-store", "\(what): an answer to a credential is the client's own")
                let pageTarget = target.replacingOccurrences(of: "/api/images?", with: "/api/images?offset=0&limit=5&")
                let paged = try fetch(server, pageTarget == target ? "/api/images?offset=0&limit=5" : pageTarget, headers: headers)
                #expect(paged.status == 200 && paged.header("Tiler-Token-Refused") == refusal, "\(what), one page")
            }
        }
    }

    /// A token brought in the query (a link) is carried on the `Link`s to the other pages, so following them keeps
    /// the private images listed; one brought in a header stays out of them.
    @Test func pagingLinksCarryAQueryToken() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let token = try fixture.token("*")
            var target = "/api/images?offset=0&limit=3&token=\(token)"
            var names: [String] = []
            while true {
                let page = try fetch(server, target)
                #expect(page.status == 200 && page.header("Cache-Control") == "private, no-store")
                names += try #require(try page.json() as? [[String: Any]]).compactMap { $0["name"] as? String }
                let next = (page.header("Link") ?? "").split(separator: ",").first { $0.contains("rel=\"next\"") }
                guard let next, let open = next.firstIndex(of: "<"), let close = next.firstIndex(of: ">") else { break }
                target = String(next[next.index(after: open)..<close])
                #expect(target.hasSuffix("&token=\(token)"), "\(target)")
            }
            #expect(names == ["a/link", "a/one", "a/two", "ab", "b/x", "pub/fake", "pub/link", "pub/open"])
            let byHeader = try fetch(server, "/api/images?offset=0&limit=3", headers: Self.bearer(token))
            #expect(byHeader.header("Link") == "</api/images?offset=3&limit=3>; rel=\"next\"")
            // A token that is not a token's characters is refused (the public list, with the refusal), never echoed
            // into a header.
            let odd = try fetch(server, "/api/images?offset=0&limit=1&token=a%0D%0ALink:%20x")
            #expect(odd.status == 200 && odd.header("Link") == nil)
            #expect(odd.header("Tiler-Token-Refused") == "400 the access token or signature is malformed")
            #expect(!odd.headers.contains { $0.value.contains("Link:") || $0.name == "Link" })
        }
    }

    /// A CORS preflight carries no credential: under a private prefix it is answered alike whether or not the image
    /// exists, and never names a version; elsewhere it still says 404 for what does not exist.
    @Test func aPreflightSaysNothingOfPrivateImages() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let version = try Self.version(server, "a/one", token: try fixture.token("a/*"))
            let targets = [
                "/images/a/one.dzi", "/images/a/nobody.dzi", "/images/a/one@000000000000.dzi", "/images/a/one@\(version).dzi",
                "/images/a/one_files/9/0_0.jpg", "/images/a/nobody_files/9/0_0.jpg", "/api/images/a/one/visible",
                "/api/images/a/nobody/visible", "/images/pub/fake.dzi",
            ]
            var answers: Set<String> = []
            for target in targets {
                let answer = try fetch(server, target, method: "OPTIONS", headers: ["Origin: https://viewer.example"])
                #expect(answer.status == 200, "\(target): \(answer.status) \(answer.text)")
                #expect(!answer.text.contains(version), "\(target)")
                answers.insert("\(answer.status) \(answer.header("Allow") ?? "") \(answer.text)")
            }
            #expect(answers.count == 1, "\(answers)")
            #expect(try fetch(server, "/images/pub/nobody.dzi", method: "OPTIONS").status == 404)
        }
    }

    /// A connection that verified a signed unversioned tile URL checks it afresh once the image is re-sliced: it was
    /// signed for the old version.
    @Test func aRememberedSignatureLapsesWithTheVersion() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let token = try fixture.token("a/*")
            let query = try Self.tileQuery(server, "a/one", token: token)
            let target = "/images/a/one_files/9/0_0.jpg?" + query
            let connection = try RawHTTPConnection(port: server.port)
            try connection.request(target)
            #expect(try connection.readResponse(head: false).status == 200)
            let before = try Self.version(server, "a/one", token: token)
            try fixture.pyramids.addPyramid("a/one", width: 600, height: 400, tileBytes: 80)
            #expect(try await eventually { try Self.version(server, "a/one", token: token) != before })
            try connection.request(target)
            #expect(try connection.readResponse(head: false).status == 401, "the same connection, after the re-slice")
            #expect(try fetch(server, target).status == 401, "a new connection")
        }
    }

    static func names(_ server: Server, _ headers: [String], _ query: String) throws -> [String] {
        let answer = try fetch(server, "/api/images" + query, headers: headers)
        #expect(answer.status == 200)
        return try #require(try answer.json() as? [[String: Any]]).compactMap { $0["name"] as? String }
    }

    static var now: Int { Int(Date().timeIntervalSince1970) }

    static func signature(of query: String) -> String {
        String(query.split(separator: "&").first { $0.hasPrefix("sig=") }?.dropFirst(4) ?? "")
    }

    static func replacingSignature(of query: String, with signature: String) -> String {
        query.split(separator: "&").map { $0.hasPrefix("sig=") ? "sig=" + signature : String($0) }.joined(separator: "&")
    }

    /// A policy file like the fixture's but whose one key has id `keyID` and secret `secret` (by default k1's).
    static func policy(in fixture: PrivateFixture, keyID: String, secret: String? = nil) throws -> String {
        var file = "keys/k1.key"
        if let secret {
            file = "keys/\(keyID).key"
            try fixture.pyramids.write(secret + "\n", to: file)
        }
        try fixture.pyramids.write(#"{"keys": [{"id": "\#(keyID)", "file": "\#(file)"}]}"#, to: "other-\(keyID).json")
        return fixture.pyramids.base + "/other-\(keyID).json"
    }
}
