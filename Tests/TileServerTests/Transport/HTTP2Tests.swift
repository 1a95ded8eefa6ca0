import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import TestSupport
import Testing

@testable import TileServer

/// HTTP/2 over TLS (negotiated by ALPN), with the real `curl --http2` and AsyncHTTPClient as clients: the same answers
/// as HTTP/1.1 — tiles from the cache and from their files, ranges, conditional requests, HEAD, errors — and many
/// streams at once on one connection.
@Suite struct HTTP2Tests {
    /// `curl --http2` on `urls` over one connection, trusting `authority`: per URL the status, the protocol version
    /// and the body.
    private static func curl(
        _ urls: [String], authority: String, _ arguments: [String] = []
    ) throws -> [(status: Int, version: String, body: [UInt8])] {
        let folder = try TemporaryDirectory(prefix: "h2-curl")
        var command = ["-s", "--http2", "--cacert", authority, "--max-time", "20"] + arguments
        for (index, url) in urls.enumerated() {
            command += [url, "-o", "\(folder.path)/\(index)", "-w", "%{http_code} %{http_version}\\n"]
        }
        let outcome = try ExternalTool.run("/usr/bin/curl", command)
        let lines = outcome.output.split(separator: "\n")
        return urls.indices.map { index in
            let parts = index < lines.count ? lines[index].split(separator: " ") : []
            let body = (try? Data(contentsOf: URL(fileURLWithPath: "\(folder.path)/\(index)"))).map { [UInt8]($0) } ?? []
            return (parts.first.flatMap { Int($0) } ?? 0, parts.count > 1 ? String(parts[1]) : "", body)
        }
    }

    @Test(arguments: [0, 8 << 20])
    func tilesRangesAndConditionalsAsOverHTTP1(cacheBytes: Int) async throws {
        let (pyramids, tls, configuration) = try tlsServerFixtures(cacheBytes: cacheBytes)
        let ca = tls.file("ca")
        try await withServer(pyramids, configuration) { server in
            let base = "https://127.0.0.1:\(server.port)/images/big_files/11/"
            let tiles = [(0, 0), (1, 0), (7, 3), (0, 0), (1, 0), (7, 3), (2, 2)]
            let answers = try await blocking { try Self.curl(tiles.map { base + "\($0.0)_\($0.1).jpg" }, authority: ca) }
            for ((column, row), answer) in zip(tiles, answers) {
                #expect(answer.status == 200 && answer.version == "2")
                #expect(answer.body == PyramidFixture.tileBytes(level: 11, column: column, row: row, count: 20_000))
            }
            let expected = PyramidFixture.tileBytes(level: 11, column: 3, row: 1, count: 20_000)
            let range = try await blocking { try Self.curl([base + "3_1.jpg"], authority: ca, ["-r", "100-199"]) }[0]
            #expect(range.status == 206 && range.body == Array(expected[100..<200]))
            let head = try await blocking { try Self.curl([base + "3_1.jpg"], authority: ca, ["-I"]) }[0]
            #expect(head.status == 200 && String(decoding: head.body, as: UTF8.self).contains("content-length: 20000"))
            let etag = try #require(
                String(decoding: head.body, as: UTF8.self).split(separator: "\r\n").first { $0.hasPrefix("etag: ") }?.dropFirst(6))
            let notModified = try await blocking { try Self.curl([base + "3_1.jpg"], authority: ca, ["-H", "If-None-Match: \(etag)"]) }[0]
            #expect(notModified.status == 304 && notModified.body.isEmpty)
            let missing = try await blocking {
                try Self.curl([base + "99_99.jpg", "https://127.0.0.1:\(server.port)/images/none.dzi"], authority: ca)
            }
            #expect(missing.map(\.status) == [404, 404])
            #expect(String(decoding: missing[1].body, as: UTF8.self).contains("none"))
        }
    }

    @Test func aViewportsTilesShareOneConnection() async throws {
        let (pyramids, tls, configuration) = try tlsServerFixtures(cacheBytes: 8 << 20)
        try await withServer(pyramids, configuration) { server in
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.trustRoots = .file(tls.file("ca"))
            var clientConfiguration = HTTPClient.Configuration(tlsConfiguration: settings)
            clientConfiguration.httpVersion = .automatic
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
            defer { _ = client.shutdown() }
            // Sixty tiles asked at once, as a viewport does.
            let tiles = (0..<60).map { ($0 % 8, ($0 / 8) % 4) }
            let answers = try await withThrowingTaskGroup(of: (Int, Int, [UInt8], Int).self) { group in
                for (column, row) in tiles {
                    group.addTask {
                        let url = "https://127.0.0.1:\(server.port)/images/big_files/11/\(column)_\(row).jpg"
                        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(20))
                        let body = try await response.body.collect(upTo: 1 << 20)
                        #expect(response.version == .http2)
                        return (column, row, Array(buffer: body), Int(response.status.code))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.count == 60)
            for (column, row, body, status) in answers {
                #expect(status == 200 && body == PyramidFixture.tileBytes(level: 11, column: column, row: row, count: 20_000))
            }
            #expect(server.statistics.connections <= 1)
        }
    }

    @Test func cleartextHTTP2WithPriorKnowledgeBesideHTTP1() async throws {
        let pyramids = try PyramidFixture()
        try pyramids.addPyramid("big", width: 2048, height: 1024, tileBytes: 20_000)
        var configuration = testConfiguration(root: pyramids.root)
        configuration.cleartextHTTP2 = true
        // No cache: tiles are sent from their files, as file regions inside HTTP/2's DATA frames.
        configuration.cacheBytes = 0
        try await withServer(pyramids, configuration) { server in
            let base = "http://127.0.0.1:\(server.port)/images/big_files/11/"
            let urls = (0..<8).map { base + "\($0)_1.jpg" }
            // h2load (nghttp2's load generator) asks them over one connection, ten streams at a time.
            let load = try await blocking {
                try ExternalTool.run("/usr/bin/h2load", ["-n", "400", "-c", "1", "-m", "10"] + urls)
            }
            #expect(load.output.contains("requests: 400 total, 400 started, 400 done, 400 succeeded, 0 failed, 0 errored"), "\(load.output)")
            #expect(load.output.contains("Application protocol: h2c"), "\(load.output)")
            // nghttp prints each stream's bytes as received.
            let one = try await blocking { try ExternalTool.run("/usr/bin/nghttp", [base + "5_2.jpg"]) }
            #expect(Array(one.output.utf8) == PyramidFixture.tileBytes(level: 11, column: 5, row: 2, count: 20_000))
            // The same port still speaks HTTP/1.1, and a request that only begins like the preface is HTTP/1.1's to refuse.
            #expect(try fetch(server, "/images/big_files/11/5_2.jpg").body == PyramidFixture.tileBytes(level: 11, column: 5, row: 2, count: 20_000))
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("PRI * HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try connection.readResponse().status >= 400)
            #expect(server.statistics.fileSends > 0)
        }
    }

    @Test(arguments: [true, false])
    func shutdownClosesAnIdleTLSConnectionAtOnce(http2: Bool) async throws {
        var (pyramids, tls, configuration) = try tlsServerFixtures()
        configuration.shutdownGracePeriod = .seconds(60)
        let server = try await Server.start(configuration)
        var settings = TLSConfiguration.makeClientConfiguration()
        settings.trustRoots = .file(tls.file("ca"))
        var clientConfiguration = HTTPClient.Configuration(tlsConfiguration: settings)
        clientConfiguration.httpVersion = http2 ? .automatic : .http1Only
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        defer { _ = client.shutdown() }
        let response = try await client.execute(HTTPClientRequest(url: "https://127.0.0.1:\(server.port)/healthz"), timeout: .seconds(20))
        _ = try await response.body.collect(upTo: 1 << 16)
        #expect(response.version == (http2 ? .http2 : .http1_1) && server.statistics.connections == 1)
        // The idle connection is told to go (HTTP/2: GOAWAY) and closed: no wait for the grace period (a minute here;
        // the bound leaves room for a loaded machine).
        let started = ContinuousClock.now
        await server.shutdown()
        #expect(ContinuousClock.now - started < .seconds(20))
        withExtendedLifetime(pyramids) {}
    }
}
