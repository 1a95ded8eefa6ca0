import Testing
import TileServer

/// Strong ETags that survive restarts, and If-None-Match → 304.
@Suite struct ConditionalRequestTests {
    @Test(arguments: Transport.allCases)
    func etagIsStableAcrossRestartsAndAnswers304(transport: Transport) async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        let targets = ["/images/alpha_files/9/1_0.jpg", "/images/alpha.dzi"]
        var firstTags: [String] = []
        try await withServer(transport, fixture) { server in
            for target in targets {
                let response = try await fetch(from: server, target)
                let etag = try #require(response.header("ETag"))
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && !etag.hasPrefix("W/"))
                firstTags.append(etag)
            }
        }
        try await withServer(transport, fixture) { server in
            for (target, etag) in zip(targets, firstTags) {
                #expect(try await fetch(from: server, target).header("ETag") == etag)
                for condition in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
                    let response = try await fetch(from: server, target, headers: ["If-None-Match: \(condition)"])
                    #expect(response.status == 304, "\(target) \(condition)")
                    #expect(response.body.isEmpty)
                    #expect(response.header("ETag") == etag)
                    #expect(response.header("Cache-Control") != nil)
                }
                let changed = try await fetch(from: server, target, headers: ["If-None-Match: \"something-else\""])
                #expect(changed.status == 200 && !changed.body.isEmpty)
            }
        }
    }

    @Test func rewrittenTileGetsANewETag() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500, tileBytes: 100)
        let first = try await fetchTag(fixture)
        try fixture.addPyramid("alpha", width: 500, height: 500, tileBytes: 120)
        let second = try await fetchTag(fixture)
        #expect(first != second)
    }

    private func fetchTag(_ fixture: PyramidFixture) async throws -> String? {
        var tag: String?
        try await withInProcessServer(fixture) { server in tag = try await fetch(server, "/images/alpha_files/9/0_0.jpg").header("ETag") }
        return tag
    }

    @Test(arguments: Transport.allCases)
    func corsOnTilesDescriptorsAndJSON(transport: Transport) async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try await withServer(transport, fixture) { server throws in
            let targets = [
                "/images/alpha_files/9/0_0.jpg", "/images/alpha.dzi", "/api/images",
                "/api/images/alpha/visible?x=0&y=0&width=100&height=100&zoomScale=1", "/images/alpha_files/9/7_7.jpg",
            ]
            for target in targets {
                #expect(
                    try await fetch(from: server, target, headers: ["Origin: http://elsewhere.example"]).header("Access-Control-Allow-Origin") == "*")
            }
        }
    }
}
