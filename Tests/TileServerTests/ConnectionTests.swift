import Foundation
import Testing
import TileServer

/// Connection handling: keep-alive, pipelining, malformed and oversized requests, idle and slow clients. (What the
/// connection's state decides at each deadline, to the millisecond, is `ConnectionStateTests`'; a client that reads none
/// of its answers is reset in `ConnectionLimitsTests`.)
@Suite struct ConnectionTests {
    @Test func keepAliveServesManyRequestsOnOneConnection() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try await withServer(fixture) { server in
            let connection = try RawHTTPConnection(port: server.port)
            for round in 0..<3 {
                for target in ["/images/alpha_files/9/0_1.jpg", "/healthz", "/images/alpha.dzi", "/nope"] {
                    try connection.request(target)
                    let response = try connection.readResponse()
                    #expect(response.header("Connection") == nil, "\(round) \(target)")
                }
            }
        }
    }

    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 2000, height: 2000, tileBytes: 5000)
        try await withServer(fixture) { server in
            let connection = try RawHTTPConnection(port: server.port)
            // Misses (disk reads) and immediate answers interleaved, all in one write.
            let targets = (0..<6).flatMap { column in ["/images/alpha_files/11/\(column)_3.jpg", "/healthz", "/images/alpha_files/11/0_3.jpg"] }
            try connection.send(targets.map { "GET \($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
            for target in targets {
                let response = try connection.readResponse()
                #expect(response.status == 200)
                if target == "/healthz" {
                    #expect(response.text.contains("ok"))
                } else {
                    let parts = target.split(separator: "/").last!.split(separator: "_")
                    let column = Int(parts[0])!
                    #expect(response.body == PyramidFixture.tileBytes(level: 11, column: column, row: 3, count: 5000), "\(target)")
                }
            }
        }
    }

    @Test func http10ClosesUnlessAskedToKeepAlive() async throws {
        let fixture = try PyramidFixture()
        try await withServer(fixture) { server in
            let plain = try RawHTTPConnection(port: server.port)
            try plain.send("GET /healthz HTTP/1.0\r\n\r\n")
            #expect(try plain.readResponse().header("Connection") == "close")
            #expect(plain.waitForClose())
            let kept = try RawHTTPConnection(port: server.port)
            try kept.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try kept.readResponse().header("Connection") == "keep-alive")
            try kept.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try kept.readResponse().status == 200)
        }
    }

    @Test(arguments: [
        "GARBAGE\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET /\r\n\r\n", "GET / HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n", "\u{01}\u{02}\u{03}\r\n\r\n",
    ])
    func malformedRequestsGet400AndTheConnectionCloses(request: String) async throws {
        let fixture = try PyramidFixture()
        try await withServer(fixture) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send(request)
            let response = try connection.readResponse()
            #expect(response.status == 400)
            #expect(response.header("Connection") == "close")
            #expect(connection.waitForClose())
        }
    }

    @Test func malformedRequestAfterGoodOnesAnswersThemFirst() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try await withServer(fixture) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send(
                "GET /images/alpha_files/9/1_1.jpg HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\nNONSENSE\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
            #expect(try connection.readResponse().status == 200)
            #expect(try connection.readResponse().status == 400)
            #expect(connection.waitForClose())
        }
    }

    /// Plain requests are read by ``SimpleRequestDecoder``; the first unusual one (here a `GET` with a body) hands the
    /// connection to NIO's decoder for good. Answers stay in order, and no body is taken for a request.
    @Test func plainAndUnusualRequestsShareAConnectionInOrder() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try await withServer(fixture) { server in
            let connection = try RawHTTPConnection(port: server.port)
            let tile = "GET /images/alpha_files/9/1_1.jpg HTTP/1.1\r\nHost: t\r\n\r\n"
            try connection.send(
                tile + "GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nGET /\r\n0\r\n\r\n"
                    + "GET /images/alpha.dzi HTTP/1.1\r\nHost: t\r\nContent-Length: 17\r\n\r\nGET /x HTTP/1.1\r\n" + tile)
            let answers = try (0..<4).map { _ in try connection.readResponse() }
            #expect(answers.map(\.status) == [200, 200, 200, 200])
            #expect(answers[0].body == answers[3].body && answers[0].header("Content-Type") == "image/jpeg")
            #expect(answers[1].text.contains("ok") && answers[2].text.contains("<Image"))
            #expect(!connection.hasData(waitingMilliseconds: 200))
        }
    }

    /// In process, where each write is exactly one read (over TCP the kernel may merge the pieces).
    @Test func aPlainHeadSplitAcrossManyWritesIsAnswered() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try await withInProcessServer(fixture) { server in
            let connection = try await server.connect()
            let request = Array("GET /images/alpha_files/9/0_0.jpg HTTP/1.1\r\nHost: t\r\nIf-None-Match: \"nope\"\r\n\r\n".utf8)
            for start in stride(from: 0, to: request.count, by: 7) {
                try await connection.send(String(decoding: request[start..<min(start + 7, request.count)], as: UTF8.self))
            }
            let response = try await connection.readResponse()
            #expect(response.status == 200 && response.header("Content-Type") == "image/jpeg")
            try await connection.request("/healthz")
            #expect(try await connection.readResponse().status == 200)
        }
    }

    /// A client that half-closes inside a plain head gets what NIO's decoder makes of it: the connection closes, with
    /// a 400 at most.
    @Test func halfCloseInsideAPlainHeadClosesTheConnection() async throws {
        let fixture = try PyramidFixture()
        try await withServer(fixture) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\nHo")
            connection.shutdownWriting()
            #expect(try connection.readResponse().status == 200)
            if let cut = try? connection.readResponse() {
                #expect(cut.status == 400)
            }
            #expect(connection.waitForClose())
        }
    }

    @Test func oversizedHeadsAreRefusedAndTheConnectionCloses() async throws {
        let fixture = try PyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.maxHeadBytes = 4096
        try await withServer(fixture, configuration) { server in
            let hugeHeader = try RawHTTPConnection(port: server.port)
            try hugeHeader.send("GET /healthz HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "a", count: 10000))\r\n\r\n")
            let response = try hugeHeader.readResponse()
            #expect(response.status == 431)
            #expect(hugeHeader.waitForClose())
            let hugeTarget = try RawHTTPConnection(port: server.port)
            try hugeTarget.send("GET /\(String(repeating: "a", count: 10000)) HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect([400, 431].contains(try hugeTarget.readResponse().status))
            #expect(hugeTarget.waitForClose())
            let manyHeaders = try RawHTTPConnection(port: server.port)
            try manyHeaders.send("GET /healthz HTTP/1.1\r\nHost: t\r\n" + (0..<300).map { "X-\($0): 1\r\n" }.joined() + "\r\n")
            #expect(try manyHeaders.readResponse().status == 431)
            #expect(manyHeaders.waitForClose())
        }
    }

    @Test func silentClientIsDropped() async throws {
        let fixture = try PyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.headTimeout = .milliseconds(500)
        try await withServer(fixture, configuration) { server in
            let connection = try RawHTTPConnection(port: server.port, timeout: 15)
            let start = ContinuousClock.now
            #expect(try await blocking { connection.waitForClose() })
            #expect(ContinuousClock.now - start >= .milliseconds(400))
        }
    }

    @Test func tricklingHeadersAreDroppedWith408() async throws {
        let fixture = try PyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.headTimeout = .seconds(1)
        try await withServer(fixture, configuration) { server in
            let opened = ContinuousClock.now
            let connection = try RawHTTPConnection(port: server.port, timeout: 15)
            try connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\n")
            let start = ContinuousClock.now
            // One header line every 200 ms: each would reset a naive idle timer, so only a head deadline stops it.
            let (lines, status, droppedAt) = try await blocking {
                var line = 0
                while ContinuousClock.now - start < .seconds(10), !connection.hasData(waitingMilliseconds: 200) {
                    line += 1
                    guard (try? connection.send("X-Line-\(line): 1\r\n")) != nil else { break }
                }
                // The 408 may be lost to a reset if a line crossed the close; the drop itself is what matters.
                let dropped = ContinuousClock.now
                let status = (try? connection.readResponse())?.status
                return (line, status, connection.waitForClose() ? dropped : nil)
            }
            #expect(status == nil || status == 408)
            // Dropped at the head deadline (a second after the connection was accepted), not before, whatever the
            // lines sent meanwhile (how many depends on how busy the machine is), and not never.
            #expect(lines >= 1)
            let elapsed = try #require(droppedAt) - opened
            #expect(elapsed >= .milliseconds(950) && elapsed < .seconds(10))
        }
    }

    @Test func idleKeepAliveConnectionIsClosedAfterTheIdleTimeout() async throws {
        let fixture = try PyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.headTimeout = .seconds(1)
        configuration.idleTimeout = .seconds(3)
        try await withServer(fixture, configuration) { server in
            let connection = try RawHTTPConnection(port: server.port, timeout: 15)
            try connection.request("/healthz")
            #expect(try connection.readResponse().status == 200)
            let start = ContinuousClock.now
            #expect(try await blocking { connection.waitForClose() })
            // The longer idle timeout applies between requests, not the head timeout.
            #expect(ContinuousClock.now - start >= .seconds(2))
        }
    }

    @Test func halfClosedClientStillGetsItsAnswers() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try await withServer(fixture) { server in
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("GET /images/alpha_files/9/1_0.jpg HTTP/1.1\r\nHost: t\r\n\r\nGET /healthz HTTP/1.1\r\nHost: t\r\n\r\n")
            connection.shutdownWriting()
            #expect(try connection.readResponse().status == 200)
            #expect(try connection.readResponse().status == 200)
            #expect(connection.waitForClose())
        }
    }
}
