import Foundation
import NIOCore
import Testing

@testable import TileServer

/// The outside probe's findings on the HTTP edges, in-process: answers that depend on the request's host say so to
/// caches, error bodies are never sniffed, faulty framing closes, `Expect` is met or refused at once.
@Suite struct ProbeFindingsTests {
    static func withConnection(
        trustProxy: Bool = false, publicURL: String? = nil, _ body: (EmbeddedConnection) async throws -> Void
    ) async throws {
        let fixture = try PyramidFixture()
        try fixture.addImagePyramid("photo", image: TestPicture.make(width: 300, height: 200), tileSize: 128, format: "png")
        var configuration = testConfiguration(root: fixture.root)
        configuration.iiif.trustProxy = trustProxy
        configuration.iiif.publicURL = publicURL
        try await EmbeddedConnection.with(configuration, body)
    }

    /// The values of `name` in the head of `response` (the first response in the text).
    static func header(_ name: String, in response: String) -> [String] {
        let head = response.components(separatedBy: "\r\n\r\n")[0]
        return head.split(separator: "\r\n").compactMap { line in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 && parts[0].lowercased() == name.lowercased() ? parts[1].trimmingCharacters(in: .whitespaces) : nil
        }
    }

    static let hostDependent = [
        "/iiif/3/photo/info.json", "/iiif/3/photo", "/iiif/3/photo/0,0,128,128/128,/0/default.png", "/iiif/3/photo/full/50,/0/default.jpg",
    ]

    @Test func answersHoldingTheHostSayVaryHost() async throws {
        try await Self.withConnection { connection in
            for target in Self.hostDependent {
                let out = try await connection.send("GET \(target) HTTP/1.1\r\nHost: evil.example\r\n\r\n")
                let vary = Self.header("Vary", in: out).flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                #expect(vary.contains("Host"), "\(target): \(vary)")
                #expect(!vary.contains("X-Forwarded-Host"), "untrusted forwarding headers change nothing, so they are not named")
                #expect(out.contains("evil.example"), "\(target) names the host it was asked under")
            }
            // Tiles and descriptors hold no host: no Vary: Host (they would only split caches).
            for target in ["/images/photo.dzi", "/images/photo_files/0/0_0.png", "/api/images"] {
                let out = try await connection.send("GET \(target) HTTP/1.1\r\nHost: evil.example\r\n\r\n")
                #expect(!Self.header("Vary", in: out).contains { $0.contains("Host") }, "\(target)")
            }
        }
        try await Self.withConnection(trustProxy: true) { connection in
            let out = try await connection.send("GET /iiif/3/photo/info.json HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(Self.header("Vary", in: out) == ["Accept, Host, Forwarded, X-Forwarded-Proto, X-Forwarded-Host, X-Forwarded-Prefix"])
        }
        // A pinned public URL: the answers no longer depend on the request, and say nothing of it.
        try await Self.withConnection(publicURL: "https://images.example.org") { connection in
            for target in Self.hostDependent {
                let out = try await connection.send("GET \(target) HTTP/1.1\r\nHost: evil.example\r\n\r\n")
                #expect(!Self.header("Vary", in: out).contains { $0.contains("Host") }, "\(target)")
                #expect(!out.contains("evil.example"), "\(target)")
            }
        }
    }

    @Test func jsonBodiesAreNeverSniffed() async throws {
        try await Self.withConnection { connection in
            for target in ["/api/nothing/%3Cscript%3E", "/images/<script>.dzi", "/iiif/3/nope/info.json", "/api/images", "/healthz"] {
                let out = try await connection.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n")
                #expect(Self.header("X-Content-Type-Options", in: out) == ["nosniff"], "\(target)")
            }
        }
    }

    @Test func http10WithTransferEncodingIsRefusedAndClosed() async throws {
        for encoding in ["chunked", "gzip, chunked", "identity"] {
            try await Self.withConnection { connection in
                let out = try await connection.send(
                    "GET /healthz HTTP/1.0\r\nTransfer-Encoding: \(encoding)\r\nConnection: keep-alive\r\n\r\n0\r\n\r\n")
                #expect(out.hasPrefix("HTTP/1.1 400 Bad Request\r\n"), "\(encoding)")
                #expect(out.contains("Transfer-Encoding") && out.contains("Connection: close\r\n"))
                #expect(await connection.waitForClose())
            }
        }
    }

    @Test func expectContinueIsAnsweredAtOnce() async throws {
        try await Self.withConnection { connection in
            let interim = try await connection.send(
                "GET /healthz HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n", responses: 1)
            #expect(interim == "HTTP/1.1 100 Continue\r\n\r\n")
            let final = try await connection.send("hello")
            #expect(final.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(!connection.isClosed)
            // Without a body there is nothing to continue: the answer comes straight away.
            let bodiless = try await connection.send("GET /healthz HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n\r\n")
            #expect(bodiless.hasPrefix("HTTP/1.1 200 OK\r\n"))
        }
    }

    @Test func otherExpectationsGet417() async throws {
        for expectation in ["something-else", "100-continue, foo"] {
            try await Self.withConnection { connection in
                let out = try await connection.send(
                    "GET /healthz HTTP/1.1\r\nHost: t\r\nExpect: \(expectation)\r\nContent-Length: 5\r\n\r\n")
                #expect(out.hasPrefix("HTTP/1.1 417 Expectation Failed\r\n"), "\(expectation)")
                #expect(await connection.waitForClose())
            }
        }
    }

    @Test func rangeStartsBeyondInt64AreUnsatisfiable() async throws {
        try await Self.withConnection { connection in
            for start in ["9223372036854775807", "9223372036854775808", "18446744073709551616", "99999999999999999999999999"] {
                let out = try await connection.send("GET /images/photo.dzi HTTP/1.1\r\nHost: t\r\nRange: bytes=\(start)-\r\n\r\n")
                #expect(out.hasPrefix("HTTP/1.1 416 Range Not Satisfiable\r\n"), "\(start)")
                #expect(Self.header("Content-Range", in: out).first?.hasPrefix("bytes */") == true)
            }
        }
    }
}
