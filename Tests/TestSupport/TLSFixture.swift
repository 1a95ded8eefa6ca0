import Foundation

/// Certificates made by the real `openssl` for the TLS tests, in a temporary folder: certificate authorities, and
/// server certificates for `localhost` and 127.0.0.1 that they sign (EC P-256 keys; each file `NAME.pem` and
/// `NAME.key`).
public final class TLSFixture {
    private let folder: TemporaryDirectory

    /// The folder holding the files.
    public var path: String { folder.path }

    /// An empty folder.
    public init() throws {
        folder = try TemporaryDirectory(prefix: "tls-tests")
    }

    /// `path/NAME.pem` (a certificate or chain) or, with `key`, `path/NAME.key`.
    public func file(_ name: String, key: Bool = false) -> String {
        "\(path)/\(name).\(key ? "key" : "pem")"
    }

    /// A self-signed certificate authority `name`.
    public func makeAuthority(_ name: String) throws {
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", file(name, key: true),
            "-out", file(name), "-days", "30", "-subj", "/CN=Tiler test authority \(name)",
        ])
    }

    /// A server certificate `name` (common name `commonName`) for `localhost` and 127.0.0.1, signed by `authority`,
    /// valid from now for `days` days.
    public func makeCertificate(_ name: String, authority: String, commonName: String = "localhost", days: Int = 30) throws {
        try openssl([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", file(name, key: true), "-out",
            "\(path)/\(name).csr", "-subj", "/CN=\(commonName)",
        ])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: "\(path)/\(name).ext", atomically: true, encoding: .utf8)
        try openssl([
            "x509", "-req", "-in", "\(path)/\(name).csr", "-CA", file(authority), "-CAkey", file(authority, key: true), "-CAcreateserial",
            "-out", file(name), "-days", String(days), "-extfile", "\(path)/\(name).ext",
        ])
    }

    /// Copies `source`'s certificate and key over `destination`'s (a renewal written in place).
    public func replace(_ destination: String, with source: String) throws {
        for key in [false, true] {
            let data = try Data(contentsOf: URL(fileURLWithPath: file(source, key: key)))
            try data.write(to: URL(fileURLWithPath: file(destination, key: key)), options: .atomic)
        }
    }

    private func openssl(_ arguments: [String]) throws {
        let outcome = try ExternalTool.run("/usr/bin/openssl", arguments)
        guard outcome.status == 0 else {
            throw TLSFixtureError(description: "openssl \(arguments.joined(separator: " ")) failed: \(outcome.errors)")
        }
    }
}

public struct TLSFixtureError: Error, CustomStringConvertible {
    public let description: String
}
