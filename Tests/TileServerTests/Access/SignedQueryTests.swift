import Foundation
import Testing

@testable import TileServer

/// A signed URL is one spelling only: its query is `sig=SIG` and nothing else, so that no holder of a signed URL can
/// make a cache in front miss at will with variants of it (each would be a cache key of its own).
@Suite struct SignedQueryTests {
    @Test func aSignedTileTakesItsSignatureAlone() async throws {
        let fixture = try PrivateFixture()
        try await withServer(fixture.pyramids, fixture.configuration) { server in
            let token = try fixture.token("a/*")
            let query = try PrivateImageTests.tileQuery(server, "a/one", token: token)
            let version = try PrivateImageTests.version(server, "a/one", token: token)
            let bad = PrivateImageTests.replacingSignature(of: query, with: String(repeating: "A", count: 22))
            let tiles = ["/images/a/one@\(version)_files/9/0_0.jpg", "/images/a/one_files/9/0_0.jpg"]
            for tile in tiles {
                #expect(try fetch(server, tile + "?" + query).status == 200, "\(tile)")
                let variants = [
                    query + "&" + bad, bad + "&" + query, "x=1&" + query, query + "&x=1", query + "&", "&" + query, query + "&" + query,
                    query + "&token=" + token,
                ]
                for variant in variants {
                    let answer = try fetch(server, tile + "?" + variant)
                    #expect(answer.status == 400, "\(variant): \(answer.status)")
                    #expect(answer.text.contains("signature alone"), "\(variant): \(answer.text)")
                    #expect(answer.header("X-Cache") == nil && !answer.text.contains(query.dropFirst(4)), "\(variant): nothing of the tile")
                }
            }
            // A signed IIIF image request too.
            let iiif = "/iiif/3/a%2Fone/0,0,256,256/256,/0/default.jpg"
            let signed = fixture.policy.tileQuery(name: "a/one", version: version, now: PrivateImageTests.now)
            #expect(try fetch(server, iiif + "?" + signed).status == 200)
            #expect(try fetch(server, iiif + "?" + signed + "&x=1").status == 400)
            // A public image's tile ignores its query, as before (the shipped VCL drops it before hashing).
            #expect(try fetch(server, "/images/pub/open_files/9/0_0.jpg?" + query + "&x=1").status == 200)
        }
    }
}
