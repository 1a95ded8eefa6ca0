import Foundation
import Testing

@testable import TileServer

/// Under an access policy, nothing a request without credentials gets tells anything of the private images, their
/// number included: every route answers the same bytes whether or not private images exist. The counts are on the
/// metrics listener (`--metrics-port`), which operators keep apart (on loopback by default).
@Suite struct UnauthenticatedAnswersTests {
    /// What is compared of an answer: its status, the headers that could carry a count or a change, and its body.
    static func summary(_ answer: RawResponse) -> String {
        let headers = ["Content-Length", "X-Total-Count", "Link", "ETag", "Last-Modified", "Cache-Control", "Allow", "WWW-Authenticate"]
            .map { "\($0): \(answer.header($0) ?? "-")" }
        return "\(answer.status)\n" + headers.joined(separator: "\n") + "\n" + answer.text
    }

    /// Every route, asked without a credential (private names among them, existing or not).
    static let targets = [
        "/", "/index.html", "/healthz", "/metrics", "/api/images", "/api/images?offset=0&limit=1", "/api/images?offset=1&limit=1",
        "/api/images/a/one/visible?x=0&y=0&width=600&height=400&zoomScale=1", "/api/images/a/one/properties",
        "/api/images/a/one/associated/label", "/images/a/one.dzi", "/images/a/one_files/9/0_0.jpg", "/images/a/nobody.dzi", "/api/jobs",
        "/api/jobs/0123456789abcdef", "/api/jobs/0123456789abcdef/events", "/api/nothing", "/images/pub/open.dzi",
        "/images/pub/open_files/9/0_0.jpg", "/iiif/3/a%2Fone/info.json", "/iiif/3/a%2Fone/probe", "/iiif/3/a%2Fone/full/max/0/default.jpg",
        "/iiif/3/pub%2Fopen/info.json", "/iiif/3/", "/iiif/3/token",
    ]

    @Test func everyRouteAnswersTheSameWithAndWithoutPrivateImages() async throws {
        let pyramids = try PyramidFixture()
        let root = pyramids.root
        for folder in ["a", "b", "pub"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
        }
        for name in ["pub/open", "pub/two"] {
            try pyramids.addPyramid(name, width: 600, height: 400, tileBytes: 64)
        }
        try pyramids.write(PrivateFixture.keyOne + "\n", to: "keys/k1.key")
        try pyramids.write(
            #"{"default": "private", "images": {"pub/": "public"}, "keys": [{"id": "k1", "file": "keys/k1.key"}]}"#, to: "policy.json")
        var configuration = testConfiguration(root: root)
        configuration.accessFile = pyramids.base + "/policy.json"
        configuration.metricsPort = 0
        try await withServer(pyramids, configuration) { server in
            let metricsPort = try #require(server.metricsPort)
            var before: [String: String] = [:]
            for target in Self.targets {
                before[target] = Self.summary(try fetch(server, target))
                before[target + " HEAD"] = Self.summary(try fetch(server, target, method: "HEAD"))
            }
            #expect(try fetch(server, "/healthz").text == #"{"status":"ok"}"#)
            #expect(try fetch(server, "/metrics").status == 404)
            #expect(try Self.metric("tiler_images", port: metricsPort) == 2)

            for name in ["a/one", "a/two", "b/x", "secret"] {
                try pyramids.addPyramid(name, width: 600, height: 400, tileBytes: 64)
            }
            _ = await server.rescan()
            #expect(try Self.metric("tiler_images", port: metricsPort) == 6, "the metrics listener counts every image")
            let health = try Self.fetchListener(port: metricsPort, "/healthz")
            #expect(health.status == 200 && health.text == #"{"status":"ok","images":6}"#)
            for target in Self.targets {
                #expect(Self.summary(try fetch(server, target)) == before[target], "\(target)")
                #expect(Self.summary(try fetch(server, target, method: "HEAD")) == before[target + " HEAD"], "HEAD \(target)")
            }
        }
    }

    /// The metrics listener answers `/metrics` and `/healthz` alone; without a policy the main port serves both as
    /// before, with the count.
    @Test func theMetricsListenerAnswersMetricsAndHealthAlone() async throws {
        let pyramids = try PyramidFixture()
        try pyramids.addPyramid("one", width: 600, height: 400, tileBytes: 64)
        var configuration = testConfiguration(root: pyramids.root)
        configuration.metricsPort = 0
        try await withServer(pyramids, configuration) { server in
            let port = try #require(server.metricsPort)
            #expect(port != server.port)
            #expect(try Self.fetchListener(port: port, "/metrics").text.contains("\ntiler_slide_jpeg_map_budget "))
            #expect(try Self.fetchListener(port: port, "/images/one.dzi").status == 404)
            #expect(try Self.fetchListener(port: port, "/metrics", method: "POST").status == 405)
            #expect(try fetch(server, "/healthz").text == #"{"status":"ok","images":1}"#)
            #expect(try fetch(server, "/metrics").status == 200)
        }
        let plain = try await Server.start(testConfiguration(root: pyramids.root))
        #expect(plain.metricsPort == nil)
        await plain.shutdown()
    }

    static func fetchListener(port: Int, _ target: String, method: String = "GET") throws -> RawResponse {
        let connection = try RawHTTPConnection(port: port)
        try connection.request(target, method: method)
        return try connection.readResponse(head: method == "HEAD")
    }

    /// The value of the unlabelled sample `name` on the metrics listener at `port`.
    static func metric(_ name: String, port: Int) throws -> Int? {
        let text = try fetchListener(port: port, "/metrics").text
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.dropFirst(name.count + 1)) }
    }
}
