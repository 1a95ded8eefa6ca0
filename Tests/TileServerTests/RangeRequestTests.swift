import Foundation
import Testing

@testable import TileServer

/// `Range` requests on a real server on 127.0.0.1: tiles from the cache and from their open files (`sendfile` with an
/// offset), descriptors and the viewer's files.
@Suite struct RangeRequestTests {
    static func fixture() throws -> PyramidFixture {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 600, height: 400, tileBytes: 5000)
        try FileManager.default.createDirectory(atPath: fixture.base + "/Public", withIntermediateDirectories: true)
        try fixture.write(String(repeating: "0123456789", count: 300), to: "Public/app.js")
        return fixture
    }

    /// A server with the tile cache on (hits after the first request) or off (every tile sent from its file).
    static func configuration(_ fixture: PyramidFixture, cache: Bool) -> ServerConfiguration {
        var configuration = testConfiguration(root: fixture.root)
        configuration.publicDirectory = fixture.base + "/Public"
        if !cache { configuration.cacheBytes = 0 }
        return configuration
    }

    @Test(arguments: [true, false])
    func tilesAnswerSingleRangesWithTheRightBytes(cache: Bool) async throws {
        let fixture = try Self.fixture()
        let whole = PyramidFixture.tileBytes(level: 10, column: 1, row: 0, count: 5000)
        try await withInProcessServer(fixture, Self.configuration(fixture, cache: cache)) { server in
            let target = "/images/alpha_files/10/1_0.jpg"
            let full = try await fetch(server, target)
            #expect(full.status == 200 && full.body == whole)
            #expect(full.header("Accept-Ranges") == "bytes")
            let etag = try #require(full.header("ETag"))
            let cases: [(String, Range<Int>)] = [
                ("bytes=0-99", 0..<100), ("bytes=4990-", 4990..<5000), ("bytes=-7", 4993..<5000), ("bytes=100-99999", 100..<5000),
            ]
            for _ in 0..<2 {  // the second round hits the cache when there is one
                for (header, range) in cases {
                    let part = try await fetch(server, target, headers: ["Range: \(header)"])
                    #expect(part.status == 206, "\(header)")
                    #expect(part.body == Array(whole[range]), "\(header)")
                    #expect(part.header("Content-Range") == "bytes \(range.lowerBound)-\(range.upperBound - 1)/5000", "\(header)")
                    #expect(part.header("Content-Length") == String(range.count))
                    #expect(part.header("ETag") == etag)
                    #expect(part.header("Content-Type") == "image/jpeg")
                }
            }
            // Several ranges: the whole file (allowed), as is a range under an If-Range for another version.
            #expect(try await fetch(server, target, headers: ["Range: bytes=0-1,5-9"]).body == whole)
            let stale = try await fetch(server, target, headers: ["Range: bytes=0-9", "If-Range: \"an-old-version\""])
            #expect(stale.status == 200 && stale.body == whole)
            let current = try await fetch(server, target, headers: ["Range: bytes=0-9", "If-Range: \(etag)"])
            #expect(current.status == 206 && current.body == Array(whole[0..<10]))
            // Past the end: 416 with the size; HEAD and a matching If-None-Match ignore the range.
            let outside = try await fetch(server, target, headers: ["Range: bytes=5000-"])
            #expect(outside.status == 416 && outside.header("Content-Range") == "bytes */5000")
            #expect(outside.text.contains("\"status\":416"))
            let head = try await fetch(server, target, method: "HEAD", headers: ["Range: bytes=0-9"])
            #expect(head.status == 200 && head.header("Content-Length") == "5000")
            let notModified = try await fetch(server, target, headers: ["Range: bytes=0-9", "If-None-Match: \(etag)"])
            #expect(notModified.status == 304)
        }
    }

    @Test func rangesOnAKeptAliveConnectionLeaveItInStep() async throws {
        let fixture = try Self.fixture()
        let whole = PyramidFixture.tileBytes(level: 10, column: 0, row: 1, count: 5000)
        try await withInProcessServer(fixture, Self.configuration(fixture, cache: false)) { server in
            let connection = try await server.connect()
            // Pipelined: a range, a 416, the whole tile, another range — each answer exactly as long as it says.
            let target = "/images/alpha_files/10/0_1.jpg"
            try await connection.send(
                ["bytes=10-19", "bytes=9000-", nil, "bytes=-3"].map { range in
                    "GET \(target) HTTP/1.1\r\nHost: t\r\n" + (range.map { "Range: \($0)\r\n" } ?? "") + "\r\n"
                }.joined())
            #expect(try await connection.readResponse().body == Array(whole[10..<20]))
            #expect(try await connection.readResponse().status == 416)
            #expect(try await connection.readResponse().body == whole)
            #expect(try await connection.readResponse().body == Array(whole[4997..<5000]))
        }
    }

    @Test func descriptorsAndViewerFilesAnswerRanges() async throws {
        let fixture = try Self.fixture()
        try await withInProcessServer(fixture, Self.configuration(fixture, cache: true)) { server in
            let script = try await fetch(server, "/app.js", headers: ["Range: bytes=5-14"])
            #expect(script.status == 206 && script.text == "5678901234")
            #expect(script.header("Content-Range") == "bytes 5-14/3000")
            let descriptor = try await fetch(server, "/images/alpha.dzi")
            let part = try await fetch(server, "/images/alpha.dzi", headers: ["Range: bytes=-4"])
            #expect(part.status == 206 && part.body == Array(descriptor.body.suffix(4)))
            // JSON answers are not files: a range is ignored.
            #expect(try await fetch(server, "/api/images", headers: ["Range: bytes=0-1"]).status == 200)
        }
    }
}
