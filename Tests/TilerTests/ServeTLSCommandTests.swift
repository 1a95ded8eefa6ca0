import Foundation
import TestSupport
import Testing

@testable import tiler

/// `tiler serve` with TLS as an operator meets it: the https URL in the startup line, a renewed certificate taken on
/// SIGHUP, and options that do not go together refused in one line.
@Suite struct ServeTLSCommandTests {
    /// The status of `curl` asking `url` trusting `authority` (0: no answer, such as a failed handshake).
    static func status(_ url: String, authority: String, _ arguments: [String] = []) throws -> Int {
        let outcome = try ExternalTool.run(
            "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", authority, "--max-time", "20"] + arguments + [url])
        return Int(outcome.output) ?? 0
    }

    @Test func sighupTakesARenewedCertificate() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let root = try ServeLoggingTests.pyramid(fixtures)
        let tls = try TLSFixture()
        try tls.makeAuthority("ca")
        try tls.makeAuthority("next")
        try tls.makeCertificate("server", authority: "ca")
        try tls.makeCertificate("renewed", authority: "next", commonName: "renewed.localhost")
        let server = try ServeLoggingTests.Running([
            "serve", root, "--port", "0", "--tls-cert", tls.file("server"), "--tls-key", tls.file("server", key: true), "--hsts", "600",
            "--access-log",
        ])
        defer { server.stop() }
        #expect(server.base.hasPrefix("https://127.0.0.1:"), "\(server.stdout) \(server.stderr)")
        #expect(server.stderr.contains("HTTPS only (TLS 1.2 and 1.3) with the certificate for localhost"), "\(server.stderr)")
        #expect(try Self.status(server.base + "/images/pic.dzi", authority: tls.file("ca")) == 200)
        // The access log says which protocol each request came on.
        #expect(try Self.status(server.base + "/images/pic.dzi?h1", authority: tls.file("ca"), ["--http1.1"]) == 200)
        let logged = Date().addingTimeInterval(5)
        while !server.stdout.contains("?h1 HTTP/1.1\""), Date() < logged { Thread.sleep(forTimeInterval: 0.05) }
        #expect(server.stdout.contains("\"GET /images/pic.dzi HTTP/2\" 200 "), "\(server.stdout)")
        #expect(server.stdout.contains("\"GET /images/pic.dzi?h1 HTTP/1.1\" 200 "), "\(server.stdout)")
        try tls.replace("server", with: "renewed")
        kill(server.process.processIdentifier, SIGHUP)
        let deadline = Date().addingTimeInterval(10)
        while !server.stderr.contains("TLS: now using"), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(server.stderr.contains("TLS: now using the certificate for renewed.localhost"), "\(server.stderr)")
        #expect(try Self.status(server.base + "/images/pic.dzi", authority: tls.file("next")) == 200)
        #expect(try Self.status(server.base + "/images/pic.dzi", authority: tls.file("ca")) == 0)
    }

    @Test func optionsThatDoNotGoTogetherAreOneLine() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let tls = try TLSFixture()
        try tls.makeAuthority("ca")
        try tls.makeCertificate("server", authority: "ca")
        let cases: [([String], String)] = [
            (["--tls-cert", tls.file("server")], "--tls-cert needs tls-key, its private key"),
            (["--hsts", "60"], "--hsts needs tls-cert and tls-key"),
            (["--redirect-http", "8081"], "--redirect-http needs tls-cert and tls-key"),
            (["--tls-cert", tls.file("server"), "--tls-key", tls.file("ca", key: true)], "is not the key of the certificate in"),
        ]
        for (arguments, message) in cases {
            let run = try TilerProcess.run(["serve", fixtures.folder.path, "--port", "0"] + arguments)
            #expect(run.status != 0 && run.stderr.contains(message), "\(arguments): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").filter { $0.hasPrefix("Error") }.count == 1, "\(run.stderr)")
        }
    }
}
