import Foundation
import Testing
import TileServer

@testable import Rendering

/// The IIIF service over HTTP: info.json, the base URI's redirect, content negotiation, CORS and preflight, HEAD,
/// identifiers with `%2F`, the public URL, and every error status.
@Suite struct IIIFServiceTests {
    /// A fixture with a 700 × 500 PNG pyramid `photo` and a small one nested as `maps/city`.
    static func fixture() throws -> PyramidFixture {
        let fixture = try PyramidFixture()
        try fixture.addImagePyramid("photo", image: TestPicture.make(width: 700, height: 500), tileSize: 128, format: "png")
        try FileManager.default.createDirectory(atPath: fixture.root + "/maps", withIntermediateDirectories: true)
        try fixture.addImagePyramid("maps/city", image: TestPicture.make(width: 90, height: 60), tileSize: 64, format: "jpg")
        return fixture
    }

    @Test func infoJSONDescribesThePyramid() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            let response = try await fetch(server, "/iiif/3/photo/info.json")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\"")
            #expect(response.header("Access-Control-Allow-Origin") == "*")
            #expect(response.header("Vary") == "Accept, Host")
            #expect(response.header("Link") == "<http://iiif.io/api/image/3/level2.json>;rel=\"profile\"")
            let info = try #require(try response.json() as? [String: Any])
            #expect(info["@context"] as? String == "http://iiif.io/api/image/3/context.json")
            #expect(info["id"] as? String == "http://test/iiif/3/photo")
            #expect(info["type"] as? String == "ImageService3")
            #expect(info["protocol"] as? String == "http://iiif.io/api/image")
            #expect(info["profile"] as? String == "level2")
            #expect(info["width"] as? Int == 700 && info["height"] as? Int == 500)
            let limits = IIIFLimits()
            #expect(info["maxWidth"] as? Int == limits.maxWidth && info["maxHeight"] as? Int == limits.maxHeight)
            #expect(info["maxArea"] as? Int == limits.maxArea)
            let tiles = try #require(info["tiles"] as? [[String: Any]])
            #expect(tiles.count == 1 && tiles[0]["width"] as? Int == 128)
            #expect(tiles[0]["scaleFactors"] as? [Int] == (0...10).map { 1 << $0 })
            let sizes = try #require(info["sizes"] as? [[String: Int]])
            #expect(sizes.map { $0["width"]! } == [1, 2, 3, 6, 11, 22, 44, 88])
            #expect(sizes.map { $0["height"]! } == [1, 1, 2, 4, 8, 16, 32, 63])
            #expect(info["extraQualities"] as? [String] == ["color", "gray", "bitonal"])
            #expect(info["extraFormats"] as? [String] == ["webp"])
            #expect(info["preferredFormats"] as? [String] == ["png"])
            let features = try #require(info["extraFeatures"] as? [String])
            for feature in ["mirroring", "sizeUpscaling", "canonicalLinkHeader", "profileLinkHeader", "regionSquare", "cors"] {
                #expect(features.contains(feature))
            }
            #expect(!features.contains("rotationArbitrary"))
        }
    }

    @Test func jsonLDOnlyWhenAskedForOrWithoutAccept() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            let browser = try await fetch(server, "/iiif/3/photo/info.json", headers: ["Accept: */*"])
            #expect(browser.header("Content-Type") == "application/json")
            let linkedData = try await fetch(server, "/iiif/3/photo/info.json", headers: ["Accept: application/ld+json"])
            #expect(linkedData.header("Content-Type")?.hasPrefix("application/ld+json") == true)
            #expect(browser.body == linkedData.body)
        }
    }

    @Test func baseURIRedirectsToInfoJSON() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            let response = try await fetch(server, "/iiif/3/photo")
            #expect(response.status == 303)
            #expect(response.header("Location") == "http://test/iiif/3/photo/info.json")
            #expect(response.header("Access-Control-Allow-Origin") == "*")
            #expect(response.body.isEmpty)
        }
    }

    @Test func nestedNamesAreOneSegmentWithEncodedSlashes() async throws {
        let fixture = try Self.fixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.iiif.publicURL = "https://images.example.org/tiler"
        try await withInProcessServer(fixture, configuration) { server in
            let info = try #require(try await fetch(server, "/iiif/3/maps%2Fcity/info.json").json() as? [String: Any])
            #expect(info["id"] as? String == "https://images.example.org/tiler/iiif/3/maps%2Fcity")
            #expect(info["width"] as? Int == 90)
            let image = try await fetch(server, "/iiif/3/maps%2Fcity/full/max/0/default.jpg")
            #expect(image.status == 200 && image.header("Content-Type") == "image/jpeg")
            #expect(image.header("Link")?.hasPrefix("<https://images.example.org/tiler/iiif/3/maps%2Fcity/full/max/0/default.jpg>") == true)
            #expect(try await fetch(server, "/iiif/3/maps/city/info.json").status == 404)
            #expect(try await fetch(server, "/iiif/3/maps/city/full/max/0/default.jpg").status == 404)
            #expect(try await fetch(server, "/iiif/3/maps%2F..%2Fphoto/info.json").status == 400)
        }
    }

    @Test func forwardedHeadersDecideIdsOnlyWhenTheProxyIsTrusted() async throws {
        let fixture = try Self.fixture()
        let xForwarded = ["X-Forwarded-Proto: https", "X-Forwarded-Host: images.example.org", "X-Forwarded-Prefix: /tiles/"]
        // nil when the request or its JSON failed (the expectations then fail too).
        func id(_ server: InProcessServer, _ headers: [String]) async -> String? {
            let response = try? await fetch(server, "/iiif/3/photo/info.json", headers: headers)
            return ((try? response?.json()) as? [String: Any])?["id"] as? String
        }
        try await withInProcessServer(fixture) { server in
            // Untrusted (the default): a client cannot choose the URLs the server writes.
            #expect(await id(server, xForwarded) == "http://test/iiif/3/photo")
            #expect(await id(server, ["Forwarded: proto=https;host=evil.example"]) == "http://test/iiif/3/photo")
        }
        var trusted = testConfiguration(root: fixture.root)
        trusted.iiif.trustProxy = true
        try await withInProcessServer(fixture, trusted) { server in
            #expect(await id(server, xForwarded) == "https://images.example.org/tiles/iiif/3/photo")
            #expect(
                await id(server, ["Forwarded: for=192.0.2.1;proto=https;host=\"a.example:8443\", for=10.0.0.1"])
                    == "https://a.example:8443/iiif/3/photo")
            #expect(await id(server, ["X-Forwarded-Host: b.example, backend", "X-Forwarded-Proto: http"]) == "http://b.example/iiif/3/photo")
            // Values that cannot be written into a URL safely are ignored: the Host header is used.
            #expect(await id(server, ["X-Forwarded-Host: evil.example/<script>"]) == "http://test/iiif/3/photo")
            #expect(await id(server, ["X-Forwarded-Host: a.example", "X-Forwarded-Proto: javascript"]) == "http://a.example/iiif/3/photo")
            // A TLS terminator that passes Host through sends the scheme alone.
            #expect(await id(server, ["X-Forwarded-Proto: https"]) == "https://test/iiif/3/photo")
            #expect(await id(server, ["Forwarded: proto=https"]) == "https://test/iiif/3/photo")
            #expect(await id(server, ["X-Forwarded-Host: 2001:db8::1"]) == "http://test/iiif/3/photo")
            #expect(await id(server, ["X-Forwarded-Prefix: //evil.example"]) == "http://test/iiif/3/photo")
            #expect(await id(server, []) == "http://test/iiif/3/photo")
            let redirect = try await fetch(server, "/iiif/3/photo", headers: xForwarded)
            #expect(redirect.header("Location") == "https://images.example.org/tiles/iiif/3/photo/info.json")
        }
        trusted.iiif.publicURL = "https://fixed.example"
        try await withInProcessServer(fixture, trusted) { server in
            #expect(await id(server, xForwarded) == "https://fixed.example/iiif/3/photo", "--public-url wins")
        }
    }

    @Test func idsComeFromTheHostHeaderOrTheListeningAddress() async throws {
        try await withServer(try Self.fixture()) { server in
            let named = try RawHTTPConnection(port: server.port)
            try named.send("GET /iiif/3/photo/info.json HTTP/1.1\r\nHost: example.org:8080\r\n\r\n")
            #expect(try named.readResponse().text.contains("\"id\":\"http://example.org:8080/iiif/3/photo\""))
            for request in ["GET /iiif/3/photo/info.json HTTP/1.0\r\n\r\n", "GET /iiif/3/photo/info.json HTTP/1.1\r\nHost: a/b\"c\r\n\r\n"] {
                let connection = try RawHTTPConnection(port: server.port)
                try connection.send(request)
                #expect(try connection.readResponse().text.contains("\"id\":\"http://127.0.0.1:\(server.port)/iiif/3/photo\""))
            }
        }
    }

    @Test func preflightAndHead() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            for target in ["/iiif/3/photo/info.json", "/iiif/3/photo/full/max/0/default.jpg"] {
                let preflight = try await fetch(
                    server, target, method: "OPTIONS",
                    headers: ["Origin: http://viewer.example", "Access-Control-Request-Method: GET", "Access-Control-Request-Headers: range"])
                #expect(preflight.status == 200)
                #expect(preflight.header("Access-Control-Allow-Origin") == "*")
                #expect(preflight.header("Access-Control-Allow-Methods") == "GET, HEAD, OPTIONS")
                #expect(preflight.header("Access-Control-Allow-Headers") == "range")
                #expect(preflight.body.isEmpty)
                let head = try await fetch(server, target, method: "HEAD")
                let get = try await fetch(server, target)
                #expect(head.status == 200 && head.body.isEmpty)
                // A render's length is known only by encoding it, which HEAD does not do: it says none.
                let rendered = target.hasSuffix(".jpg")
                #expect(head.header("Content-Length") == (rendered ? nil : String(get.body.count)))
                #expect(head.header("ETag") == get.header("ETag"))
                #expect(head.header("Content-Type") == get.header("Content-Type"))
                #expect(head.header("Link") == get.header("Link"))
            }
        }
    }

    @Test func errorStatuses() async throws {
        let cases = [
            ("/iiif/3/nope/info.json", 404), ("/iiif/3/nope", 404), ("/iiif/3/nope/full/max/0/default.jpg", 404),
            ("/iiif/3/photo/full/full/0/default.jpg", 400), ("/iiif/3/photo/1000,0,10,10/max/0/default.jpg", 400),
            ("/iiif/3/photo/full/800,/0/default.jpg", 400), ("/iiif/3/photo/full/^20000,/0/default.jpg", 400),
            ("/iiif/3/photo/full/max/45/default.jpg", 501), ("/iiif/3/photo/full/max/0/default.gif", 501),
            ("/iiif/3/photo/full/max/0/grey.jpg", 400), ("/iiif/3/photo/full/max/0/default.bmp", 400),
            ("/iiif/3/photo/full/max/0", 404), ("/iiif/2/photo/info.json", 404), ("/iiif/3/%2e%2e/info.json", 400),
        ]
        try await withInProcessServer(try Self.fixture()) { server in
            for (target, status) in cases {
                let response = try await fetch(server, target)
                #expect(response.status == status, "\(target)")
                #expect(response.header("Content-Type") == "application/json", "\(target)")
                #expect(response.header("Access-Control-Allow-Origin") == "*", "\(target)")
                #expect(response.text.contains("\"status\":\(status)"), "\(target)")
            }
        }
    }

    @Test func requestsAreCountedUnderTheirRoutes() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            _ = try await fetch(server, "/iiif/3/photo/info.json")
            _ = try await fetch(server, "/iiif/3/photo/full/64,/0/default.png")
            let metrics = try await fetch(server, "/metrics").text
            #expect(metrics.contains("tiler_http_requests_total{route=\"iiif_info\",status=\"200\"} 1"))
            #expect(metrics.contains("tiler_http_requests_total{route=\"iiif_image\",status=\"200\"} 1"))
        }
    }

    @Test func badSettingsAreRefused() async throws {
        let fixture = try Self.fixture()
        let settings: [(inout IIIFConfiguration) -> Void] = [
            { $0.publicURL = "ftp://x" }, { $0.publicURL = "http://x/" }, { $0.publicURL = "http://x?y" },
            { $0.limits.maxWidth = 0 }, { $0.limits.maxHeight = 70000 }, { $0.limits.maxArea = 0 }, { $0.renderThreads = 0 },
            { $0.renderQueueLimit = -1 }, { $0.jpegQuality = 101 }, { $0.renderBudgetBytes = -1 }, { $0.renderBudgetBytes = 1 << 41 },
        ]
        for change in settings.indices {
            var configuration = testConfiguration(root: fixture.root)
            settings[change](&configuration.iiif)
            await #expect(throws: ServerError.self) { _ = try await Server.start(configuration) }
        }
    }
}
