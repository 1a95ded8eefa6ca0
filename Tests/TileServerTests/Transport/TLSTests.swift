import AsyncHTTPClient
import Foundation
import NIOCore
import NIOSSL
import TestSupport
import Testing

@testable import HTTPCore
@testable import TileServer

/// HTTPS on the main port, with certificates the real `openssl` made and the real `curl` and AsyncHTTPClient (NIOSSL)
/// as clients: the same answers as over plain HTTP, TLS 1.2 and 1.3 only, plain HTTP refused with the URL to ask,
/// a renewed certificate taken without dropping a connection, bad files refused in one line.
@Suite struct TLSTests {
    /// `curl` on `url` over HTTP/1.1 (HTTP/2 has tests of its own) trusting `authority`, with `arguments`: the status,
    /// the body, and what `-v` said.
    private static func curl(_ url: String, authority: String, _ arguments: [String] = []) throws -> (status: Int, body: [UInt8], log: String) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("tls-curl-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let outcome = try ExternalTool.run(
            "/usr/bin/curl", ["-sv", "--http1.1", "--cacert", authority, "-o", output, "-w", "%{http_code}", "--max-time", "20"] + arguments + [url])
        let body = (try? Data(contentsOf: URL(fileURLWithPath: output))).map { [UInt8]($0) } ?? []
        return (Int(outcome.output) ?? 0, body, outcome.errors)
    }

    @Test(arguments: [["--tlsv1.3"], ["--tlsv1.2", "--tls-max", "1.2"]])
    func tilesCrossTLSAsTheyDoPlainHTTP(version: [String]) async throws {
        // No cache: every tile is a miss sent from its file, which TLS reads and sends as bytes.
        let (pyramids, tls, configuration) = try tlsServerFixtures(cacheBytes: 0)
        try await withServer(pyramids, configuration) { server in
            #expect(server.url.hasPrefix("https://"))
            let base = "https://127.0.0.1:\(server.port)"
            let authority = tls.file("ca")
            for (column, row) in [(0, 0), (3, 1), (7, 3), (3, 1)] {
                let tile = try await blocking { try Self.curl("\(base)/images/big_files/11/\(column)_\(row).jpg", authority: authority, version) }
                #expect(tile.status == 200)
                #expect(tile.body == PyramidFixture.tileBytes(level: 11, column: column, row: row, count: 20_000))
                #expect(tile.log.contains(version[0] == "--tlsv1.3" ? "TLSv1.3" : "TLSv1.2"))
            }
            // A range of a file body, and a conditional request.
            let range = try await blocking { try Self.curl("\(base)/images/big_files/11/2_2.jpg", authority: authority, ["-r", "19990-"]) }
            #expect(range.status == 206 && range.body == Array(PyramidFixture.tileBytes(level: 11, column: 2, row: 2, count: 20_000)[19990...]))
            let descriptor = try await blocking { try Self.curl("\(base)/images/big.dzi", authority: authority) }
            #expect(descriptor.status == 200 && String(decoding: descriptor.body, as: UTF8.self).contains("<Image"))
            #expect(!descriptor.log.lowercased().contains("strict-transport-security"))
            #expect(server.statistics.fileSends + server.statistics.diskReads > 0)
        }
    }

    @Test func olderProtocolsAndPlainHTTPAreRefused() async throws {
        let (pyramids, tls, configuration) = try tlsServerFixtures()
        try await withServer(pyramids, configuration) { server in
            let base = "https://127.0.0.1:\(server.port)"
            let authority = tls.file("ca")
            // TLS 1.1 (and older): the handshake fails.
            let old = try ExternalTool.run(
                "/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(server.port)", "-tls1_1", "-CAfile", authority])
            #expect(old.status != 0)
            let refused = try await blocking { try Self.curl("\(base)/images/big.dzi", authority: authority, ["--tls-max", "1.1"]) }
            #expect(refused.status == 0)
            // Only suites with forward secrecy and AEAD in TLS 1.2: a CBC suite is refused.
            let cbc = try ExternalTool.run(
                "/usr/bin/openssl",
                ["s_client", "-connect", "127.0.0.1:\(server.port)", "-tls1_2", "-cipher", "ECDHE-ECDSA-AES128-SHA256", "-CAfile", authority])
            #expect(cbc.status != 0)
            // Plain HTTP on the HTTPS port: a plain 400 naming the URL to ask, then the connection closes.
            let plain = try Self.raw(server.port, "GET /images/big.dzi?x=1 HTTP/1.1\r\nHost: tiles.example:8443\r\n\r\n")
            #expect(plain.status == 400)
            #expect(plain.text == "This port speaks HTTPS only: ask https://tiles.example:8443/images/big.dzi?x=1\n")
            #expect(plain.header("Connection") == "close")
            // Nothing of a request that is not plainly well formed is echoed.
            let odd = try Self.raw(server.port, "GET /images/big.dzi HTTP/1.1\r\nHost: <script>\r\n\r\n")
            #expect(odd.status == 400 && odd.text == "This port speaks HTTPS only\n")
            // The port still speaks TLS afterwards.
            #expect(try await blocking { try Self.curl("\(base)/images/big.dzi", authority: authority) }.status == 200)
        }
    }

    @Test func aRenewedCertificateIsTakenWithoutDroppingConnections() async throws {
        let (pyramids, tls, configuration) = try tlsServerFixtures()
        try tls.makeAuthority("other")
        try tls.makeCertificate("renewed", authority: "other", commonName: "renewed.localhost")
        try tls.makeCertificate("unrelated", authority: "other")
        try await withServer(pyramids, configuration) { server in
            let url = "https://127.0.0.1:\(server.port)/images/big_files/11/1_1.jpg"
            let first = Self.client(trusting: tls.file("ca"))
            defer { _ = first.shutdown() }
            #expect(try await Self.get(url, with: first) == 200)
            // Renewed in place by another authority: new connections get the new certificate…
            try tls.replace("server", with: "renewed")
            #expect(await server.reloadTLS())
            let second = Self.client(trusting: tls.file("other"))
            defer { _ = second.shutdown() }
            #expect(try await Self.get(url, with: second) == 200)
            // …and a connection made before the reload goes on with the old one (a new connection could not: the old
            // authority does not sign the new certificate).
            #expect(try await Self.get(url, with: first) == 200)
            let third = Self.client(trusting: tls.file("ca"))
            defer { _ = third.shutdown() }
            await #expect(throws: (any Error).self) { _ = try await Self.get(url, with: third, timeout: .seconds(3)) }
            // A key that is not the certificate's: the reload is refused and the certificate in use stays.
            try FileManager.default.removeItem(atPath: tls.file("server", key: true))
            try FileManager.default.copyItem(atPath: tls.file("unrelated", key: true), toPath: tls.file("server", key: true))
            #expect(await !server.reloadTLS())
            let fourth = Self.client(trusting: tls.file("other"))
            defer { _ = fourth.shutdown() }
            #expect(try await Self.get(url, with: fourth) == 200)
        }
    }

    @Test func badFilesAreOneLineAtStart() async throws {
        let (pyramids, tls, configuration) = try tlsServerFixtures()
        try tls.makeCertificate("unrelated", authority: "ca")
        try "not a certificate\n".write(toFile: "\(tls.path)/garbage.pem", atomically: true, encoding: .utf8)
        func refusal(certificate: String?, key: String?) async -> String? {
            var broken = configuration
            broken.tlsCertificate = certificate
            broken.tlsKey = key
            do {
                let server = try await Server.start(broken)
                await server.shutdown()
                return nil
            } catch {
                return String(describing: error)
            }
        }
        let missing = await refusal(certificate: "\(tls.path)/none.pem", key: tls.file("server", key: true))
        #expect(missing?.contains("cannot read the certificate chain \(tls.path)/none.pem: No such file or directory") == true)
        let garbage = await refusal(certificate: "\(tls.path)/garbage.pem", key: tls.file("server", key: true))
        #expect(garbage?.contains("\(tls.path)/garbage.pem holds no PEM certificate") == true)
        let notKey = await refusal(certificate: tls.file("server"), key: "\(tls.path)/garbage.pem")
        #expect(notKey?.contains("\(tls.path)/garbage.pem holds no unencrypted PEM private key") == true)
        let mismatched = await refusal(certificate: tls.file("server"), key: tls.file("unrelated", key: true))
        #expect(mismatched?.contains("is not the key of the certificate in \(tls.file("server"))") == true)
        for text in [missing, garbage, notKey, mismatched] { #expect(text?.contains("\n") == false) }
        #expect(await refusal(certificate: tls.file("server"), key: nil) == "tls-cert needs tls-key, its private key")
        var hstsAlone = testConfiguration(root: pyramids.root)
        hstsAlone.hstsMaxAge = 60
        #expect(hstsAlone.problems() == ["hsts needs tls-cert and tls-key (it is sent over HTTPS only)"])
    }

    @Test func hstsAndTheRedirectingPort() async throws {
        var (pyramids, tls, configuration) = try tlsServerFixtures()
        configuration.hstsMaxAge = 31_536_000
        configuration.redirectHTTPPort = 0
        try await withServer(pyramids, configuration) { server in
            let authority = tls.file("ca")
            let base = "https://127.0.0.1:\(server.port)"
            for target in ["/images/big.dzi", "/images/big_files/11/0_0.jpg", "/images/none.dzi"] {
                let answer = try await blocking { try Self.curl(base + target, authority: authority) }
                #expect(answer.log.contains("< Strict-Transport-Security: max-age=31536000\r\n"))
            }
            let port = try #require(server.redirectPort)
            let connection = try RawHTTPConnection(port: port)
            try connection.send("PUT /images/big.dzi?x=1 HTTP/1.1\r\nHost: tiles.example:80\r\nContent-Length: 0\r\n\r\n")
            let redirect = try connection.readResponse()
            #expect(redirect.status == 308)
            #expect(redirect.header("Location") == "https://tiles.example:\(server.port)/images/big.dzi?x=1")
            // Kept alive: a second request on the same connection; one without a well-formed host is refused.
            try connection.send("GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n")
            #expect(try connection.readResponse().header("Location") == "https://[::1]:\(server.port)/")
            try connection.send("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n")
            #expect(try connection.readResponse().status == 400)
        }
        #expect(HTTPSRedirectListener.location(uri: "/x", host: "tiles.example", tlsPort: 443) == "https://tiles.example/x")
        #expect(HTTPSRedirectListener.location(uri: "/x", host: nil, tlsPort: 443) == nil)
    }

    @Test func theLoggedSummaryNamesTheCertificateAndWarnsWhenItIsNotValid() throws {
        let tls = try TLSFixture()
        try tls.makeAuthority("ca")
        try tls.makeCertificate("server", authority: "ca", commonName: "tiles.example")
        let certificate = try #require(try NIOSSLCertificate.fromPEMFile(tls.file("server")).first)
        let now = Int(time(nil))
        let valid = TLSCredentials.summary(of: certificate, now: now)
        #expect(valid.hasPrefix("certificate for tiles.example (serial ") && !valid.contains("EXPIRED"))
        #expect(TLSCredentials.summary(of: certificate, now: now + 31 * 86_400).contains("EXPIRED"))
        #expect(TLSCredentials.summary(of: certificate, now: now - 86_400).contains("NOT YET VALID"))
    }

    /// The answer to `request`, sent as it is on a fresh connection to `port`.
    private static func raw(_ port: Int, _ request: String) throws -> RawResponse {
        let connection = try RawHTTPConnection(port: port)
        try connection.send(request)
        return try connection.readResponse()
    }

    private static func client(trusting authority: String) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .file(authority)
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(tlsConfiguration: tls))
    }

    private static func get(_ url: String, with client: HTTPClient, timeout: TimeAmount = .seconds(20)) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: timeout)
        _ = try await response.body.collect(upTo: 1 << 20)
        return Int(response.status.code)
    }
}
