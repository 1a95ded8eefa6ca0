import NIOCore
import Testing

@testable import TileServer

/// One connection's handlers on an embedded channel: the bytes each request gets, in order, without a socket.
@Suite struct ConnectionHandlerTests {
    static func withConnection(_ body: (EmbeddedConnection) async throws -> Void) async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 1000, height: 600, tileBytes: 300)
        try await EmbeddedConnection.with(testConfiguration(root: fixture.root), body)
    }

    /// The response text without its `Date` line.
    static func withoutDate(_ text: String) -> String {
        text.split(separator: "\r\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Date: ") }.joined(separator: "\r\n")
    }

    @Test func answersATileThenHitsTheCache() async throws {
        try await Self.withConnection { connection in
            let tile = String(decoding: PyramidFixture.tileBytes(level: 10, column: 3, row: 2, count: 300), as: UTF8.self)
            let first = try await connection.send("GET /images/alpha_files/10/3_2.jpg HTTP/1.1\r\nHost: t\r\n\r\n")
            let head =
                "HTTP/1.1 200 OK\r\nServer: tiler\r\nContent-Type: image/jpeg\r\nCache-Control: no-cache\r\n"
                + "Referrer-Policy: no-referrer\r\nAccept-Ranges: bytes\r\nAccess-Control-Allow-Origin: *\r\n"
            #expect(first.hasPrefix(head))
            #expect(first.contains("\r\nX-Cache: miss\r\n") && first.contains("\r\nContent-Length: 300\r\n\r\n") && first.hasSuffix(tile))
            let second = try await connection.send("GET /images/alpha_files/10/3_2.jpg HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(Self.withoutDate(second) == Self.withoutDate(first).replacingOccurrences(of: "X-Cache: miss", with: "X-Cache: hit"))
            #expect(!connection.isClosed)
        }
    }

    @Test func answersPipelinedRequestsInOrder() async throws {
        try await Self.withConnection { connection in
            let out = try await connection.send(
                "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\nHEAD /images/alpha_files/0/0_0.jpg HTTP/1.1\r\nHost: t\r\n\r\nGET /api/nothing HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
            )
            let health = try #require(out.range(of: #"{"status":"ok","images":1}"#))
            let head = try #require(out.range(of: "Content-Type: image/jpeg"))
            let notFound = try #require(out.range(of: "HTTP/1.1 404 Not Found"))
            #expect(health.upperBound < head.lowerBound && head.upperBound < notFound.lowerBound)
            // HEAD: the tile's length, not its bytes.
            #expect(!out.contains("[0/0_0]"))
            #expect(out.hasSuffix(#"{"error":"nothing at /api/nothing","status":404}"#))
            #expect(out.contains("Connection: close\r\n"))
            #expect(await connection.waitForClose())
        }
    }

    @Test func refusesOtherMethodsAndMalformedRequestsAndCloses() async throws {
        try await Self.withConnection { connection in
            let refused = try await connection.send("DELETE /images/alpha.dzi HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(refused.hasPrefix("HTTP/1.1 405 Method Not Allowed\r\n") && refused.contains("\r\nAllow: GET, HEAD, OPTIONS\r\n"))
            #expect(refused.hasSuffix(#"{"error":"method DELETE is not allowed; use GET, HEAD or OPTIONS","status":405}"#))
            #expect(await connection.waitForClose())
        }
        try await Self.withConnection { connection in
            let malformed = try await connection.send("GARBAGE\r\n\r\n")
            #expect(malformed.hasPrefix("HTTP/1.1 400 Bad Request\r\n") && malformed.contains("Connection: close\r\n"))
            #expect(await connection.waitForClose())
        }
    }

    @Test func answersIfNoneMatchWith304AndHTTP10KeepAlive() async throws {
        try await Self.withConnection { connection in
            let first = try await connection.send("GET /images/alpha.dzi HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(first.hasPrefix("HTTP/1.1 200 OK\r\n") && first.contains("\r\nConnection: keep-alive\r\n"))
            let etag = try #require(first.split(separator: "\r\n").first { $0.hasPrefix("ETag: ") }?.dropFirst(6))
            let second = try await connection.send("GET /images/alpha.dzi HTTP/1.1\r\nHost: t\r\nIf-None-Match: \(etag)\r\n\r\n")
            #expect(second.hasPrefix("HTTP/1.1 304 Not Modified\r\n") && second.hasSuffix("ETag: \(etag)\r\n\r\n"))
            #expect(!connection.isClosed)
        }
    }

    @Test func oneRuleDecidesWhatIsIIIF() async throws {
        // OPTIONS is IIIF's under /iiif/ whatever the version, as GET is: both get IIIF's 404 for version 2.
        try await Self.withConnection { connection in
            let options = try await connection.send("OPTIONS /iiif/2/alpha/info.json HTTP/1.1\r\nHost: t\r\n\r\n")
            let get = try await connection.send("GET /iiif/2/alpha/info.json HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(options.hasPrefix("HTTP/1.1 404 Not Found\r\n") && get.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
            #expect(Self.withoutDate(options) == Self.withoutDate(get))
        }
    }
}
