import Foundation
import Testing

@testable import TileServer

/// `GET /api/images` answers the whole list without parameters (as the viewer reads it) and pages with `offset` and
/// `limit`: sorted by name, `X-Total-Count` on both, `Link` to the next and previous pages, and 400 for bad values.
@Suite struct ImageListTests {
    static func names(_ response: RawResponse) throws -> [String] {
        let list = try #require(try response.json() as? [[String: Any]])
        return list.compactMap { $0["name"] as? String }
    }

    @Test func pagesCoverTheWholeListInOrder() async throws {
        let fixture = try PyramidFixture()
        for index in 0..<25 { try fixture.addPyramid(String(format: "p%02d", (index * 7) % 25), width: 300, height: 200) }
        try await withInProcessServer(fixture) { server in
            let whole = try await fetch(server, "/api/images")
            #expect(whole.status == 200 && whole.header("X-Total-Count") == "25")
            let all = try Self.names(whole)
            #expect(all == (0..<25).map { String(format: "p%02d", $0) })

            var paged: [String] = []
            var target: String? = "/api/images?limit=10"
            var links: [String] = []
            while let next = target {
                let page = try await fetch(server, next)
                #expect(page.status == 200 && page.header("X-Total-Count") == "25")
                #expect(page.header("Cache-Control") == whole.header("Cache-Control") && page.header("Content-Type") == "application/json")
                paged += try Self.names(page)
                let link = page.header("Link") ?? ""
                links.append(link)
                target = link.split(separator: ",").first { $0.contains("rel=\"next\"") }.flatMap { part in
                    part.split(separator: "<").last?.split(separator: ">").first.map(String.init)
                }
                #expect(links.count <= 3)
            }
            #expect(paged == all)
            #expect(links[0] == "</api/images?offset=10&limit=10>; rel=\"next\"")
            #expect(links[2] == "</api/images?offset=10&limit=10>; rel=\"prev\"")

            #expect(try await Self.names(fetch(server, "/api/images?offset=5")) == Array(all[5...]))
            #expect(try await Self.names(fetch(server, "/api/images?offset=24&limit=1000")) == ["p24"])
            let beyond = try await fetch(server, "/api/images?offset=99&limit=5")
            #expect(beyond.status == 200 && beyond.text == "[]" && beyond.header("X-Total-Count") == "25")
            // Other parameters are ignored, as before.
            #expect(try await Self.names(fetch(server, "/api/images?x=%22y%22")) == all)
        }
    }

    @Test(arguments: [
        "limit=0", "limit=1001", "limit=abc", "limit=", "limit=-1", "limit=+5", "offset=-1", "offset=1.5", "offset=", "offset=99999999999",
    ])
    func badPagingParametersAreRefused(query: String) async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("photo", width: 300, height: 200)
        try await withInProcessServer(fixture) { server in
            let response = try await fetch(server, "/api/images?" + query)
            #expect(response.status == 400, "\(query)")
            let body = try #require(try response.json() as? [String: Any])
            #expect(body["status"] as? Int == 400)
            let message = try #require(body["error"] as? String)
            #expect(message.hasPrefix(query.hasPrefix("limit") ? "limit must be" : "offset must be"), "\(message)")
        }
    }

    @Test func pageHeaderLines() {
        #expect(ImageListPage(offset: 0, limit: 10).headerLines(total: 10) == "X-Total-Count: 10\r\n")
        #expect(
            ImageListPage(offset: 10, limit: 10).headerLines(total: 30)
                == "Link: </api/images?offset=20&limit=10>; rel=\"next\", </api/images?offset=0&limit=10>; rel=\"prev\"\r\nX-Total-Count: 30\r\n")
        #expect(
            ImageListPage(offset: 95, limit: 10).headerLines(total: 30)
                == "Link: </api/images?offset=20&limit=10>; rel=\"prev\"\r\nX-Total-Count: 30\r\n")
    }
}
