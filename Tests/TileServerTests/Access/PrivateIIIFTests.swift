import Foundation
import Testing

@testable import TileServer

/// IIIF on private images: `info.json` lists the Authorization Flow 2.0 services, the probe answers 200 or 401 for
/// the token presented, the token service hands over a valid token, and image requests take the same credentials.
@Suite struct PrivateIIIFTests {
    static func bearer(_ token: String) -> [String] { ["Authorization: Bearer \(token)"] }

    @Test func infoJSONListsTheAuthServicesAndTellsNothingWithoutAToken() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let refused = try fetch(server, "/iiif/3/a%2Fone/info.json")
            #expect(refused.status == 401 && refused.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(!refused.text.contains("width") && refused.text.contains("AuthProbeService2"))
            let unknown = try fetch(server, "/iiif/3/a%2Fnobody/info.json")
            #expect(unknown.status == 401 && unknown.text.replacingOccurrences(of: "nobody", with: "one") == refused.text)
            let granted = try fetch(server, "/iiif/3/a%2Fone/info.json", headers: Self.bearer(try fixture.token("a/*")))
            #expect(granted.status == 200 && granted.header("Cache-Control") == "private, no-store")
            let info = try #require(try granted.json() as? [String: Any])
            #expect(info["width"] as? Int == 600)
            let probe = try #require((info["service"] as? [[String: Any]])?.first)
            #expect(probe["type"] as? String == "AuthProbeService2")
            #expect((probe["id"] as? String)?.hasSuffix("/iiif/3/a%2Fone/probe") == true)
            let access = try #require((probe["service"] as? [[String: Any]])?.first)
            #expect(access["type"] as? String == "AuthAccessService2" && access["profile"] as? String == "external")
            let tokenService = try #require((access["service"] as? [[String: Any]])?.first)
            #expect(tokenService["type"] as? String == "AuthAccessTokenService2")
            #expect((tokenService["id"] as? String)?.hasSuffix("/iiif/auth/token") == true)
            // The refused names of the Deep Zoom tests, as IIIF identifiers.
            let aToken = Self.bearer(try fixture.token("a/*"))
            for (identifier, status) in [("a%2F..%2Fb%2Fx", 400), ("ab", 403), ("a%2Flink", 403), ("b%2Fx", 403), ("pub%2Flink", 401)] {
                let headers = status == 401 ? [] : aToken
                let answer = try fetch(server, "/iiif/3/\(identifier)/info.json", headers: headers)
                #expect(answer.status == status, "\(identifier): \(answer.status) \(answer.text)")
                #expect(!answer.text.contains("\"width\""), "\(identifier)")
            }
            // A public image's information is as always.
            let open = try fetch(server, "/iiif/3/pub%2Fopen/info.json")
            #expect(open.status == 200 && !open.text.contains("service"))
        }
    }

    @Test func theProbeAndImageRequestsTakeEveryCredentialForm() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let token = try fixture.token("a/*")
            let probe = try fetch(server, "/iiif/3/a%2Fone/probe")
            let probeBody = try probe.json() as? [String: Any]
            #expect(probe.status == 401 && probeBody?["status"] as? Int == 401)
            for headers in [Self.bearer(token), ["Cookie: other=1; tiler_token=\(token)"]] {
                let granted = try fetch(server, "/iiif/3/a%2Fone/probe", headers: headers)
                let body = try granted.json() as? [String: Any]
                #expect(granted.status == 200 && body?["status"] as? Int == 200)
            }
            // A name the token grants but no image has: the probe says what asking for it would meet.
            let missing = try fetch(server, "/iiif/3/a%2Fnobody/probe", headers: Self.bearer(token))
            let missingBody = try missing.json() as? [String: Any]
            #expect(missing.status == 404 && missingBody?["status"] as? Int == 404)
            let unseen = try fetch(server, "/iiif/3/a%2Fnobody/probe")
            #expect(unseen.status == 401, "without a token, as for a known name")
            // A stored tile (the fixture's tiles are not images, so nothing is rendered).
            let image = "/iiif/3/a%2Fone/0,0,256,256/256,/0/default.jpg"
            #expect(try fetch(server, image).status == 401)
            #expect(try fetch(server, image, headers: Self.bearer(try fixture.token("b/*"))).status == 403)
            #expect(try fetch(server, image, headers: Self.bearer(token)).status == 200)
            #expect(try fetch(server, image, headers: ["Cookie: tiler_token=\(token)"]).status == 200)
            // The signed query handed out with the descriptor works on IIIF URLs too (they name no version: the
            // signature is for the current one).
            let query = try #require(try fetch(server, "/images/a/one.dzi", headers: Self.bearer(token)).header("Tiler-Tile-Query"))
            let tile = try fetch(server, "/iiif/3/a%2Fone/0,0,256,256/256,/0/default.jpg?" + query)
            #expect(tile.status == 200 && tile.header("Cache-Control")?.hasPrefix("public, max-age=") == true)
            #expect(try fetch(server, "/iiif/3/a%2Ftwo/0,0,256,256/256,/0/default.jpg?" + query).status == 401)
        }
    }

    @Test func theTokenServiceHandsOverAValidToken() async throws {
        let fixture = try PrivateFixture()
        var configuration = fixture.configuration
        configuration.corsOrigins = ["https://viewer.example"]
        try await withServer(fixture.pyramids, configuration) { server in
            let token = try fixture.token("a/*")
            let granted = try #require(try fetch(server, "/iiif/auth/token", headers: ["Cookie: tiler_token=\(token)"]).json() as? [String: Any])
            #expect(granted["type"] as? String == "AuthAccessToken2" && granted["accessToken"] as? String == token)
            #expect((granted["expiresIn"] as? Int ?? 0) > 500)
            let missing = try #require(try fetch(server, "/iiif/auth/token").json() as? [String: Any])
            #expect(missing["type"] as? String == "AuthAccessTokenError2" && missing["profile"] as? String == "missingAspect")
            let expired = try fetch(server, "/iiif/auth/token", headers: ["Cookie: tiler_token=\(try fixture.token("a/*", seconds: -1))"])
            let expiredBody = try expired.json() as? [String: Any]
            #expect(expiredBody?["profile"] as? String == "expiredAspect")
            let page = try fetch(
                server, "/iiif/auth/token?messageId=m1&origin=https://viewer.example", headers: ["Cookie: tiler_token=\(token)"])
            #expect(page.status == 200 && page.header("Content-Type")?.hasPrefix("text/html") == true)
            #expect(
                page.text.contains("postMessage(") && page.text.contains(#""messageId":"m1""#) && page.text.contains(#""https://viewer.example""#))
            let elsewhere = try fetch(server, "/iiif/auth/token?messageId=m1&origin=https://evil.example", headers: ["Cookie: tiler_token=\(token)"])
            #expect(elsewhere.status == 403 && !elsewhere.text.contains(token))
            #expect(try fetch(server, "/iiif/auth/token?messageId=%3Cscript%3E&origin=https://viewer.example").status == 400)
        }
    }
}
