import Foundation
import Testing

@testable import TileServer

/// CORS on a real server on 127.0.0.1: preflights on every route that takes GET, any origin by default, a list of
/// origins answered by name with `Vary: Origin`.
@Suite struct CORSTests {
    static func fixture() throws -> PyramidFixture {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 600, height: 400)
        try FileManager.default.createDirectory(atPath: fixture.base + "/Public", withIntermediateDirectories: true)
        try fixture.write("export {};\n", to: "Public/app.js")
        return fixture
    }

    static func configuration(_ fixture: PyramidFixture, origins: [String] = ["*"]) -> ServerConfiguration {
        var configuration = testConfiguration(root: fixture.root)
        configuration.publicDirectory = fixture.base + "/Public"
        configuration.corsOrigins = origins
        return configuration
    }

    static let targets = [
        "/images/alpha_files/9/0_0.jpg", "/images/alpha.dzi", "/api/images", "/api/images/alpha/visible", "/iiif/3/alpha/info.json",
        "/iiif/3/alpha/full/max/0/default.jpg", "/app.js", "/healthz",
    ]

    static func preflight(_ server: InProcessServer, _ target: String, origin: String) async throws -> RawResponse {
        try await fetch(
            server, target, method: "OPTIONS",
            headers: ["Origin: \(origin)", "Access-Control-Request-Method: GET", "Access-Control-Request-Headers: range, x-requested-with"])
    }

    @Test func everyGETRouteAnswersAPreflightAndAnyOriginByDefault() async throws {
        let fixture = try Self.fixture()
        try await withInProcessServer(fixture, Self.configuration(fixture)) { server in
            let version = try #require(server.context.catalog.images.first { $0.name == "alpha" }?.version)
            for target in Self.targets + ["/images/alpha@\(version)_files/9/0_0.jpg"] {
                let answer = try await Self.preflight(server, target, origin: "http://viewer.example")
                #expect(answer.status == 200, "\(target)")
                #expect(answer.header("Access-Control-Allow-Origin") == "*", "\(target)")
                #expect(answer.header("Access-Control-Allow-Methods") == "GET, HEAD, OPTIONS", "\(target)")
                #expect(answer.header("Access-Control-Allow-Headers") == "range, x-requested-with", "\(target)")
                #expect(answer.header("Access-Control-Max-Age") == "86400", "\(target)")
                #expect(answer.body.isEmpty)
                let get = try await fetch(server, target, headers: ["Origin: http://viewer.example"])
                #expect(get.header("Access-Control-Allow-Origin") == "*", "\(target)")
                #expect(
                    get.header("Access-Control-Expose-Headers")
                        == "ETag, Content-Range, X-Cache, Link, X-Total-Count, Tiler-Tile-Query, Tiler-Token-Refused, WWW-Authenticate, Location",
                    "\(target)")
                #expect(get.header("Vary")?.contains("Origin") != true, "\(target): one answer for every origin")
            }
            // What GET would not find, a preflight does not either.
            for target in ["/images/nope.dzi", "/images/nope_files/9/0_0.jpg", "/api/nothing", "/iiif/3/nope/info.json", "/.hidden"] {
                #expect(try await Self.preflight(server, target, origin: "http://viewer.example").status == 404, "\(target)")
            }
        }
    }

    @Test func listedOriginsAreNamedAndOthersRefused() async throws {
        let fixture = try Self.fixture()
        let origins = ["https://a.example", "http://b.example:8080"]
        try await withInProcessServer(fixture, Self.configuration(fixture, origins: origins)) { server in
            for target in Self.targets {
                for origin in origins {
                    let answer = try await Self.preflight(server, target, origin: origin)
                    #expect(answer.status == 200, "\(target) \(origin)")
                    #expect(answer.header("Access-Control-Allow-Origin") == origin, "\(target)")
                    let get = try await fetch(server, target, headers: ["Origin: \(origin)"])
                    #expect(get.header("Access-Control-Allow-Origin") == origin, "\(target)")
                    #expect(get.header("Vary")?.contains("Origin") == true, "\(target)")
                }
                let refused = try await Self.preflight(server, target, origin: "https://evil.example")
                #expect(refused.status == 403, "\(target)")
                #expect(refused.header("Access-Control-Allow-Origin") == nil)
                #expect(refused.text.contains("https://evil.example"))
                let get = try await fetch(server, target, headers: ["Origin: https://evil.example"])
                #expect(get.header("Access-Control-Allow-Origin") == nil, "\(target)")
                #expect(get.header("Vary")?.contains("Origin") == true, "\(target): caches must keep origins apart")
                let plain = try await fetch(server, target)
                #expect(plain.header("Access-Control-Allow-Origin") == nil && plain.header("Vary")?.contains("Origin") == true)
            }
            // Ranges and errors carry the origin too.
            let range = try await fetch(server, "/images/alpha_files/9/0_0.jpg", headers: ["Origin: https://a.example", "Range: bytes=0-3"])
            #expect(range.status == 206 && range.header("Access-Control-Allow-Origin") == "https://a.example")
            let missing = try await fetch(server, "/images/nope.dzi", headers: ["Origin: https://a.example"])
            #expect(missing.status == 404 && missing.header("Access-Control-Allow-Origin") == "https://a.example")
        }
    }

    @Test(arguments: ["https://a.example/", "a.example", "https://a.example/path", "*.example", ""])
    func badOriginsAreRefusedAtStart(origin: String) async throws {
        let fixture = try Self.fixture()
        await #expect(throws: ServerError.self) { _ = try await Server.start(Self.configuration(fixture, origins: [origin])) }
    }

    @Test func aStarAmongOriginsIsRefused() async throws {
        let fixture = try Self.fixture()
        await #expect(throws: ServerError.self) { _ = try await Server.start(Self.configuration(fixture, origins: ["*", "https://a.example"])) }
    }
}
