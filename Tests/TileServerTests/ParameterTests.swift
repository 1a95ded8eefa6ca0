import Testing
import TileServer

/// Bad query parameters → 400 naming the parameter; unknown images and tiles → 404 with a JSON body.
@Suite struct ParameterTests {
    static let badQueries: [(query: String, parameter: String)] = [
        ("y=0&width=10&height=10&zoomScale=1", "x"),
        ("x=abc&y=0&width=10&height=10&zoomScale=1", "x"),
        ("x=0&y=0&width=0&height=10&zoomScale=1", "width"),
        ("x=0&y=0&width=10&height=-5&zoomScale=1", "height"),
        ("x=0&y=0&width=10&height=10&zoomScale=0", "zoomScale"),
        ("x=0&y=0&width=10&height=10&zoomScale=nan", "zoomScale"),
        ("x=0&y=0&width=10&height=10&zoomScale=1e999", "zoomScale"),
        ("x=0&y=0&width=10&height=10", "zoomScale"),
        ("x=0&y=0&width=10&height=10&zoomScale=1&contentScale=-2", "contentScale"),
        ("x=0&y=0&width=10&height=10&zoomScale=1&prefetch=-1", "prefetch"),
        ("x=0&y=0&width=10&height=10&zoomScale=1&prefetch=1.5", "prefetch"),
        ("x=%zz&y=0&width=10&height=10&zoomScale=1", "x"),
    ]

    @Test func badParametersAre400NamingTheParameter() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try await withInProcessServer(fixture) { server in
            for (query, parameter) in Self.badQueries {
                let response = try await fetch(server, "/api/images/alpha/visible?" + query)
                #expect(response.status == 400, "\(query)")
                #expect(response.header("Content-Type") == "application/json")
                let body = try #require(try response.json() as? [String: Any])
                let message = try #require(body["error"] as? String)
                #expect(message.hasPrefix(parameter), "\(query): \(message)")
                #expect(body["status"] as? Int == 400)
            }
            let good = try await fetch(server, "/api/images/alpha/visible?x=-50&y=0&width=10&height=10&zoomScale=1&contentScale=2&prefetch=1")
            #expect(good.status == 200)
        }
    }

    @Test func unknownImagesLevelsColumnsRowsAre404WithJSON() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 300)
        try await withInProcessServer(fixture) { server in
            let targets = [
                "/images/nope.dzi", "/images/nope_files/0/0_0.jpg", "/api/images/nope/visible?x=0&y=0&width=1&height=1&zoomScale=1",
                "/images/alpha_files/10/0_0.jpg", "/images/alpha_files/9/2_0.jpg", "/images/alpha_files/9/0_2.jpg",
                "/images/alpha_files/9/0_0.png", "/images/alpha_files/09/0_0.jpg", "/images/alpha_files/9/00_0.jpg",
                "/images/alpha_files/9/-1_0.jpg", "/images/alpha_files/9/99999999999_0.jpg", "/images/alpha_files/x/0_0.jpg",
                "/images/alpha_files/9/0_0", "/images/alpha", "/api/nothing", "/api/images/alpha",
            ]
            for target in targets {
                let response = try await fetch(server, target)
                #expect(response.status == 404, "\(target)")
                #expect(response.header("Content-Type") == "application/json", "\(target)")
                let body = try #require(try response.json() as? [String: Any])
                #expect(body["status"] as? Int == 404)
                #expect(body["error"] is String)
            }
        }
    }
}
