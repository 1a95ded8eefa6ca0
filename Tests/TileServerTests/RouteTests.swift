import Foundation
import Testing
import TileGeometry

@testable import TileServer

/// Every route against a live server: bodies exactly as on disk, headers, HEAD, 405.
@Suite struct RouteTests {
    @Test func listsImagesWithTheirGeometryAndDescriptorURL() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 1000, height: 600, tileSize: 256, format: "jpg")
        try fixture.addPyramid("maps/beta gamma", width: 300, height: 300, tileSize: 128, format: "png")
        try await withInProcessServer(fixture) { server in
            let response = try await fetch(server, "/api/images")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Access-Control-Allow-Origin") == "*")
            let list = try #require(try response.json() as? [[String: Any]])
            #expect(list.count == 2)
            let alpha = try #require(list.first { $0["name"] as? String == "alpha" })
            #expect(alpha["width"] as? Int == 1000 && alpha["height"] as? Int == 600)
            #expect(alpha["tileSize"] as? Int == 256 && alpha["overlap"] as? Int == 0)
            #expect(alpha["format"] as? String == "jpg" && alpha["maxLevel"] as? Int == 10)
            let version = try #require(alpha["version"] as? String)
            #expect(version.count == 12 && version.allSatisfy(\.isHexDigit), "\(version)")
            #expect(alpha["dzi"] as? String == "/images/alpha@\(version).dzi")
            let beta = try #require(list.first { $0["name"] as? String == "maps/beta gamma" })
            let betaVersion = try #require(beta["version"] as? String)
            #expect(beta["dzi"] as? String == "/images/maps/beta%20gamma@\(betaVersion).dzi")
            let versioned = try await fetch(server, "/images/maps/beta%20gamma@\(betaVersion).dzi")
            #expect(versioned.status == 200 && versioned.header("Cache-Control") == "public, max-age=31536000, immutable")
            let plain = try await fetch(server, "/images/maps/beta%20gamma.dzi")
            #expect(plain.status == 200 && plain.header("Cache-Control") == "public, max-age=5" && plain.body == versioned.body)
        }
    }

    @Test(arguments: Transport.allCases)
    func servesDescriptorAndTilesExactlyAsOnDisk(transport: Transport) async throws {
        let fixture = try PyramidFixture()
        let descriptor = try fixture.addPyramid("alpha", width: 1000, height: 600, tileBytes: 3000)
        try await withServer(transport, fixture) { server in
            let dzi = try await fetch(from: server, "/images/alpha.dzi")
            #expect(dzi.status == 200)
            #expect(dzi.text == descriptor.xml)
            #expect(dzi.header("Content-Type") == "application/xml")
            #expect(dzi.header("Access-Control-Allow-Origin") == "*")
            #expect(dzi.header("ETag") != nil)
            let tile = try await fetch(from: server, "/images/alpha_files/10/3_2.jpg")
            #expect(tile.status == 200)
            #expect(tile.body == PyramidFixture.tileBytes(level: 10, column: 3, row: 2, count: 3000))
            #expect(tile.header("Content-Type") == "image/jpeg")
            #expect(tile.header("Content-Length") == "3000")
            // Unversioned: served, but revalidated (a re-slice keeps this URL).
            #expect(tile.header("Cache-Control") == "no-cache" && tile.header("ETag") != nil)
            #expect(tile.header("Access-Control-Allow-Origin") == "*")
            #expect(tile.header("Server") == "tiler")
            #expect(tile.header("Date")?.hasSuffix(" GMT") == true)
            #expect(tile.header("X-Cache") == "miss")
            #expect(try await fetch(from: server, "/images/alpha_files/10/3_2.jpg").header("X-Cache") == "hit")
            #expect(
                try await fetch(from: server, "/images/alpha_files/0/0_0.jpg").body
                    == PyramidFixture.tileBytes(level: 0, column: 0, row: 0, count: 3000))
        }
    }

    @Test(arguments: Transport.allCases)
    func answersTheVisibleRectQueryWithTileURLs(transport: Transport) async throws {
        let fixture = try PyramidFixture()
        let descriptor = try fixture.addPyramid("alpha", width: 1000, height: 600)
        try await withServer(transport, fixture) { server in
            let list = try #require(try await fetch(from: server, "/api/images").json() as? [[String: Any]])
            let version = try #require(list.first?["version"] as? String)
            let response = try await fetch(from: server, "/api/images/alpha/visible?x=100&y=50&width=400&height=300&zoomScale=0.5")
            #expect(
                try await fetch(from: server, "/api/images/alpha@\(version)/visible?x=100&y=50&width=400&height=300&zoomScale=0.5").body
                    == response.body)
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(response.header("Access-Control-Allow-Origin") == "*")
            #expect(response.header("Cache-Control") == "public, max-age=5")
            let viewport = try Viewport(x: 100, y: 50, width: 400, height: 300, zoomScale: 0.5)
            let answer = try descriptor.pyramid.visibleTiles(in: viewport)
            let object = try #require(try response.json() as? [String: Any])
            #expect(object["level"] as? Int == answer.level)
            let tiles = try #require(object["tiles"] as? [[String: Any]])
            #expect(tiles.count == answer.tiles.count && !tiles.isEmpty)
            for (json, tile) in zip(tiles, answer.tiles) {
                #expect(json["col"] as? Int == tile.column && json["row"] as? Int == tile.row)
                let url = "/images/alpha@\(version)_files/\(tile.level)/\(tile.column)_\(tile.row).jpg"
                #expect(json["url"] as? String == url)
                let fetched = try await fetch(from: server, url)
                #expect(fetched.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(fetched.body == PyramidFixture.tileBytes(level: tile.level, column: tile.column, row: tile.row, count: 100))
            }
        }
    }

    @Test func healthAndMetrics() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try await withInProcessServer(fixture) { server in
            let health = try await fetch(server, "/healthz")
            #expect(health.status == 200)
            #expect(health.text.contains("\"status\":\"ok\""))
            _ = try await fetch(server, "/images/alpha_files/9/0_0.jpg")
            _ = try await fetch(server, "/images/alpha_files/9/0_0.jpg")
            _ = try await fetch(server, "/images/nope_files/9/0_0.jpg")
            let metrics = try await fetch(server, "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = metrics.text
            #expect(text.contains("tiler_http_requests_total{route=\"tile\",status=\"200\"} 2"))
            #expect(text.contains("tiler_http_requests_total{route=\"tile\",status=\"404\"} 1"))
            #expect(text.contains("tiler_http_requests_total{route=\"healthz\",status=\"200\"} 1"))
            #expect(text.contains("tiler_http_request_duration_seconds_bucket{route=\"tile\",le=\"+Inf\"} 3"))
            #expect(text.contains("tiler_http_request_duration_seconds_count{route=\"tile\"} 3"))
            #expect(text.contains("tiler_cache_hits_total 1"))
            #expect(text.contains("tiler_cache_misses_total 1"))
            #expect(text.contains("tiler_cache_entries 1"))
            #expect(text.contains("tiler_cache_evictions_total 0"))
            #expect(text.contains("tiler_tile_disk_reads_total 1"))
            #expect(text.contains("tiler_images 1"))
            #expect(text.contains("# TYPE tiler_http_request_duration_seconds histogram"))
        }
    }

    @Test func servesTheViewerWithContentTypes() async throws {
        let fixture = try PyramidFixture()
        let files = [
            ("index.html", "<!doctype html>", "text/html; charset=utf-8"),
            ("js/app.js", "console.log(1)", "text/javascript; charset=utf-8"),
            ("viewer.css", "body{}", "text/css; charset=utf-8"),
            ("icon.svg", "<svg/>", "image/svg+xml"),
            ("logo.png", "PNG", "image/png"),
            ("data.json", "{}", "application/json"),
        ]
        for (path, contents, _) in files { try fixture.write(contents, to: "Public/" + path) }
        var configuration = testConfiguration(root: fixture.root)
        configuration.publicDirectory = fixture.base + "/Public"
        try await withInProcessServer(fixture, configuration) { server in
            let index = try await fetch(server, "/")
            #expect(index.status == 200 && index.text == "<!doctype html>")
            #expect(index.header("Content-Type") == "text/html; charset=utf-8")
            for (path, contents, type) in files {
                let response = try await fetch(server, "/" + path)
                #expect(response.status == 200, "\(path)")
                #expect(response.text == contents)
                #expect(response.header("Content-Type") == type)
                #expect(response.header("ETag") != nil)
            }
            #expect(try await fetch(server, "/missing.html").status == 404)
            #expect(try await fetch(server, "/js").status == 404)
        }
    }

    @Test(arguments: Transport.allCases)
    func headMirrorsGetWithoutBody(transport: Transport) async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500, tileBytes: 777)
        try fixture.write("<html></html>", to: "Public/index.html")
        var configuration = testConfiguration(root: fixture.root)
        configuration.publicDirectory = fixture.base + "/Public"
        try await withServer(transport, fixture, configuration) { server in
            let targets = [
                "/api/images", "/images/alpha.dzi", "/images/alpha_files/9/1_1.jpg",
                "/api/images/alpha/visible?x=0&y=0&width=10&height=10&zoomScale=1",
                "/healthz", "/metrics", "/", "/images/alpha_files/9/9_9.jpg",
            ]
            for target in targets {
                let connection = try await server.connect()
                try await connection.request(target, method: "HEAD", headers: [])
                let head = try await connection.readResponse(head: true)
                try await connection.request(target, method: "GET", headers: [])
                let get = try await connection.readResponse(head: false)
                #expect(head.status == get.status, "\(target)")
                #expect(head.body.isEmpty)
                #expect(head.header("Content-Type") == get.header("Content-Type"))
                if target != "/metrics" {
                    #expect(head.header("Content-Length") == String(get.body.count), "\(target)")
                }
            }
        }
    }

    @Test(arguments: ["POST", "PUT", "DELETE", "PATCH"])
    func otherMethodsGet405WithAllow(method: String) async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try await withInProcessServer(fixture) { server in
            for target in ["/images/alpha_files/9/0_0.jpg", "/api/images", "/"] {
                let connection = try await server.connect()
                try await connection.send("\(method) \(target) HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
                let response = try await connection.readResponse()
                #expect(response.status == 405)
                #expect(response.header("Allow") == "GET, HEAD, OPTIONS")
                #expect(response.text.contains("\"status\":405"))
                #expect(await connection.waitForClose())
            }
        }
    }

    @Test func allowSaysWhatEachResourceTakes() {
        #expect(Route(path: "/api/jobs/abc"[...]).allowedMethods == [.GET, .HEAD, .DELETE, .OPTIONS])
        #expect(Route(path: "/api/images/some/name"[...]).allowedMethods == [.PUT, .OPTIONS])
        for path in ["/api/images", "/images/a.dzi", "/images/a_files/0/0_0.jpg", "/api/jobs", "/healthz", "/", "/api/nothing/here"] {
            #expect(Route(path: path[...]).allowedMethods == [.GET, .HEAD, .OPTIONS], "\(path)")
        }
    }
}
