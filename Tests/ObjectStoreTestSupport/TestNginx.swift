import Foundation
import NIOCore
import NIOPosix
import TestSupport

/// A real nginx (Debian's, /usr/sbin/nginx) serving a temporary folder on 127.0.0.1: static files with ETags, ranges
/// and `If-Match`, as the plain-HTTP range source meets them. One process in the foreground (no master, no daemon),
/// stopped by ``stop()``.
// Process is not Sendable; it is only started in init and stopped once.
public final class TestNginx: @unchecked Sendable {
    /// The folder it serves (files written here are served at `/images/NAME`).
    public let root: TemporaryDirectory
    public let port: Int
    /// With TLS, the PEM file of the certificate authority that signed its certificate (for `localhost` and
    /// 127.0.0.1), made for this instance by `openssl`; nil without.
    public let caFile: String?
    private let process: Process
    private let folder: TemporaryDirectory

    /// Starts nginx on a free port, speaking TLS with `tls`. The port is found by binding 0 and closing, so another
    /// process (the test gateway picks its ports the same way) can take it first: nginx then fails to bind, and it is
    /// started again on another.
    public init(tls: Bool = false) async throws {
        folder = try TemporaryDirectory(prefix: "nginx")
        root = try TemporaryDirectory(prefix: "nginx-www")
        caFile = tls ? try Self.makeCertificates(in: folder) : nil
        for _ in 0..<5 {
            let port = try await Self.freePort()
            let process = try Self.start(port: port, folder: folder, root: root, tls: tls)
            if try await Self.waitUntilListening(process, port: port, folder: folder) {
                self.port = port
                self.process = process
                return
            }
        }
        let log = (try? String(contentsOfFile: folder.file("error.log"), encoding: .utf8)) ?? ""
        throw GatewayError(message: "nginx did not start: \(log.suffix(1000))")
    }

    /// The served folder's URL (`https://localhost:PORT/images/` with TLS).
    public var url: String { caFile == nil ? "http://127.0.0.1:\(port)/images/" : "https://localhost:\(port)/images/" }

    /// Stops nginx.
    public func stop() {
        // SIGKILL, not terminate(): a child spawned from a Dispatch or NIO thread inherits its blocked SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func start(port: Int, folder: TemporaryDirectory, root: TemporaryDirectory, tls: Bool) throws -> Process {
        let listen =
            tls
            ? "listen 127.0.0.1:\(port) ssl; ssl_certificate \(folder.path)/server.pem; ssl_certificate_key \(folder.path)/server.key;"
            : "listen 127.0.0.1:\(port);"
        let configuration = """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(folder.path)/nginx.pid;
            error_log \(folder.path)/error.log;
            events { worker_connections 64; }
            http {
                access_log off;
                client_body_temp_path \(folder.path)/body;
                proxy_temp_path \(folder.path)/proxy;
                fastcgi_temp_path \(folder.path)/fastcgi;
                uwsgi_temp_path \(folder.path)/uwsgi;
                scgi_temp_path \(folder.path)/scgi;
                server {
                    \(listen)
                    location /images/ { alias \(root.path)/; }
                }
            }
            """
        try configuration.write(toFile: folder.file("nginx.conf"), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", folder.path, "-c", folder.file("nginx.conf"), "-e", folder.file("error.log")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// True once nginx has written its pid file (it does so only after binding its port: until then the port may
    /// be another listener's that took it first, and nginx retries its bind for two seconds) and the port accepts.
    private static func waitUntilListening(_ process: Process, port: Int, folder: TemporaryDirectory) async throws -> Bool {
        for _ in 0..<400 {
            guard process.isRunning else { return false }
            let pid = (try? String(contentsOfFile: folder.file("nginx.pid"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            if pid == String(process.processIdentifier),
                let connected = try? await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
            {
                try? await connected.close()
                return process.isRunning
            }
            try await Task.sleep(for: .milliseconds(25))
        }
        kill(process.processIdentifier, SIGKILL)
        return false
    }

    /// A certificate authority and a server certificate it signed for `localhost` and 127.0.0.1, in `folder`; gives
    /// the authority's PEM file.
    private static func makeCertificates(in folder: TemporaryDirectory) throws -> String {
        let commands = [
            "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=tiler-test-ca -keyout ca.key -out ca.pem",
            "openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr",
            "printf 'subjectAltName=DNS:localhost,IP:127.0.0.1' > san.ext",
            "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile san.ext -out server.pem",
        ]
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "set -e; cd '\(folder.path)'; " + commands.joined(separator: "; ")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw GatewayError(message: "openssl could not make the test certificates") }
        return folder.file("ca.pem")
    }

    /// A port nothing listens on now (bound to 0 by a throwaway listener, then closed).
    private static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress!.port!
        try await channel.close()
        return port
    }
}
