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
    private let process: Process
    private let folder: TemporaryDirectory

    /// Starts nginx on a free port. The port is found by binding 0 and closing, so another process (the test gateway
    /// picks its ports the same way) can take it first: nginx then exits at once, and it is started again on another.
    public init() async throws {
        folder = try TemporaryDirectory(prefix: "nginx")
        root = try TemporaryDirectory(prefix: "nginx-www")
        for _ in 0..<5 {
            let port = try await Self.freePort()
            let process = try Self.start(port: port, folder: folder, root: root)
            if try await Self.waitUntilListening(process, port: port, folder: folder) {
                self.port = port
                self.process = process
                return
            }
        }
        let log = (try? String(contentsOfFile: folder.file("error.log"), encoding: .utf8)) ?? ""
        throw GatewayError(message: "nginx did not start: \(log.suffix(1000))")
    }

    /// The served folder's URL.
    public var url: String { "http://127.0.0.1:\(port)/images/" }

    /// Stops nginx.
    public func stop() {
        // SIGKILL, not terminate(): a child spawned from a Dispatch or NIO thread inherits its blocked SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    private static func start(port: Int, folder: TemporaryDirectory, root: TemporaryDirectory) throws -> Process {
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
                    listen 127.0.0.1:\(port);
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

    /// A port nothing listens on now (bound to 0 by a throwaway listener, then closed).
    private static func freePort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress!.port!
        try await channel.close()
        return port
    }
}
