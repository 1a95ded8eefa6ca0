import Foundation

/// The demo's certificate for HTTPS (`tiler demo --tls`): a certificate authority of its own and a certificate for
/// `localhost` and 127.0.0.1 it signed, made once by `openssl` in a folder and reused while valid, so that a browser
/// told to trust the authority once goes on trusting the demo.
struct DemoCertificate {
    /// The folder holding `ca.pem`, `ca.key`, `localhost.pem` and `localhost.key`.
    let folder: String

    /// The authority's certificate: what a browser or `curl --cacert` is told to trust.
    var authority: String { folder + "/ca.pem" }
    /// The server's certificate chain.
    var certificate: String { folder + "/localhost.pem" }
    /// The server's private key.
    var key: String { folder + "/localhost.key" }

    /// Makes the files unless they are there and valid for another day.
    ///
    /// - Throws: ``CommandFailure`` when `openssl` is missing or fails.
    func prepare() throws {
        let files = [authority, folder + "/ca.key", certificate, key]
        if files.allSatisfy(FileManager.default.fileExists(atPath:)), try openssl(["x509", "-checkend", "86400", "-noout", "-in", certificate]) {
            return
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let extensions = folder + "/localhost.ext"
        try """
        subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
        basicConstraints=critical,CA:FALSE
        keyUsage=critical,digitalSignature
        extendedKeyUsage=serverAuth

        """.write(toFile: extensions, atomically: true, encoding: .utf8)
        let steps: [[String]] = [
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", folder + "/ca.key", "-out", authority,
                "-days", "825", "-subj", "/CN=Tiler demo authority (this machine only)",
            ],
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", folder + "/localhost.csr",
                "-subj", "/CN=localhost",
            ],
            [
                "x509", "-req", "-in", folder + "/localhost.csr", "-CA", authority, "-CAkey", folder + "/ca.key", "-CAcreateserial", "-out",
                certificate, "-days", "397", "-extfile", extensions,
            ],
        ]
        for step in steps {
            guard try openssl(step) else { throw CommandFailure("demo --tls: openssl \(step[0]) failed making the demo's certificate in \(folder)") }
        }
    }

    /// How to trust the authority, for the demo's banner (`port`: the one served, 0 when not known yet).
    func howToTrust(port: Int) -> String {
        """
        demo: HTTPS with a certificate for localhost signed by the demo's own authority \(authority). Trust it once:
          curl --cacert \(authority) https://localhost:\(port == 0 ? "PORT" : String(port))/api/images
          Chromium/Chrome: Settings → Privacy and security → Security → Manage certificates → Authorities → Import \(authority)
          Firefox: Settings → Certificates → View Certificates → Authorities → Import
          the whole system (Debian): sudo cp \(authority) /usr/local/share/ca-certificates/tiler-demo.crt && sudo update-ca-certificates
        """
    }

    /// Runs `openssl` with `arguments`; whether it exited 0.
    private func openssl(_ arguments: [String]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw CommandFailure("demo --tls needs openssl (apt-get install openssl): \(error.localizedDescription)")
        }
        process.waitUntilExit()
        if process.terminationStatus == 127 { throw CommandFailure("demo --tls needs openssl (apt-get install openssl)") }
        return process.terminationStatus == 0
    }
}
