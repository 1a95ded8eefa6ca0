import ArgumentParser
import Foundation
import Logging
import TileServer

/// `tiler serve`: serves every `*.dzi` pyramid under ROOT over HTTP until SIGINT or SIGTERM.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve every *.dzi pyramid under ROOT over HTTP, with the viewer.",
        discussion: """
            Pyramids are named by their path relative to ROOT without .dzi (ROOT/maps/city.dzi is "maps/city") and \
            appear and disappear while serving. Routes: /api/images, /api/images/NAME/visible?x=&y=&width=&height=\
            &zoomScale=[&contentScale=][&prefetch=], /images/NAME.dzi, /images/NAME_files/L/C_R.EXT, /healthz, \
            /metrics, the IIIF Image API 3.0 (level 2) at /iiif/3/ID/info.json and /iiif/3/ID/REGION/SIZE/ROTATION/QUALITY.FORMAT \
            (ID is the name with / written %2F), and the viewer at /. Stops gracefully on SIGINT or SIGTERM; SIGHUP rescans ROOT. \
            Every option can also be set by a TILER_* environment variable (TILER_PORT=9000, TILER_TRUST_PROXY=1, \
            TILER_CORS_ORIGIN=https://a.example,https://b.example, TILER_ROOT=/data); an option on the command line wins.
            """
    )

    @Argument(help: "The folder whose *.dzi pyramids are served (searched recursively).")
    var root: String = "."

    @Option(help: "The address to listen on (0.0.0.0 for every interface).")
    var host: String = "127.0.0.1"

    @Option(help: "The TCP port; 0 picks a free one.")
    var port: Int = 8080

    @Option(name: .customLong("cache-mb"), help: "The tile cache budget, in MiB.")
    var cacheMB: Int = 256

    @Option(name: .customLong("public"), help: "The viewer folder (default: Public/ beside the executable, else in the working directory).")
    var publicDirectory: String?

    @Option(help: "Event loop threads answering requests (default: one per core).")
    var threads = ServerConfiguration(root: ".").eventLoopThreads

    @Option(name: .customLong("file-threads"), help: "Threads reading tiles that are not in memory from the disk.")
    var fileThreads = ServerConfiguration(root: ".").fileThreads

    @Option(
        name: .customLong("open-files"),
        help: "Tile files each event loop keeps open to send misses straight from the page cache (0: none; capped by the descriptor limit).")
    var openFiles = ServerConfiguration(root: ".").openTileFilesPerLoop

    /// An image to name in the startup line as the one to open (the demo sets it).
    var openHint: String?

    @Option(
        help: "The base URL clients reach this server at (e.g. https://images.example.org), for IIIF ids (default: http://HOST from each request).")
    var publicURL: String?

    @Flag(
        name: .customLong("trust-proxy"),
        help: "Build IIIF ids from the reverse proxy's Forwarded / X-Forwarded-Proto, -Host, -Prefix headers (only behind a proxy that sets them).")
    var trustProxy = false

    @Option(name: .customLong("iiif-max-width"), help: "The widest IIIF output image, in pixels (1–65500).")
    var iiifMaxWidth = IIIFLimits().maxWidth

    @Option(name: .customLong("iiif-max-height"), help: "The tallest IIIF output image, in pixels (1–65500).")
    var iiifMaxHeight = IIIFLimits().maxHeight

    @Option(name: .customLong("iiif-max-area"), help: "The most pixels in one IIIF output image.")
    var iiifMaxArea = IIIFLimits().maxArea

    @Option(name: .customLong("iiif-threads"), help: "Threads rendering IIIF images that are not stored tiles (half the cores by default).")
    var iiifThreads = IIIFConfiguration().renderThreads

    @Option(name: .customLong("iiif-queue"), help: "IIIF renders that may wait for a thread; beyond that, 503 with Retry-After.")
    var iiifQueue = IIIFConfiguration().renderQueueLimit

    @Option(
        name: .customLong("iiif-render-mb"),
        help: "MiB that IIIF renders and their unsent bodies may hold; beyond it, 503 with Retry-After (0: one render at a time).")
    var iiifRenderMB = IIIFConfiguration().renderBudgetBytes >> 20

    @Option(
        name: .customLong("cors-origin"),
        help: "An origin whose pages' scripts may read the answers, e.g. https://viewer.example.org (repeatable; default *: any origin).")
    var corsOrigins: [String] = []

    @Option(name: .customLong("log-level"), help: "The least severe messages logged: trace, debug, info, notice, warning, error or critical.")
    var logLevel = "info"

    @Option(name: .customLong("log-format"), help: "text or json: the log's lines on stderr and the access log's on stdout.")
    var logFormat = "text"

    @Option(help: "Connections the kernel queues before they are accepted (capped by net.core.somaxconn).")
    var backlog = ServerConfiguration(root: ".").listenBacklog

    @Option(
        name: .customLong("shutdown-grace"), help: "Seconds requests in flight may take after SIGTERM or SIGINT before their connections are closed.")
    var shutdownGrace = 10.0

    @Option(
        name: .customLong("head-timeout"),
        help: "Seconds a client has to send a whole request (head and any body) from its first byte; then 408 and close.")
    var headTimeout = 5.0

    @Option(name: .customLong("idle-timeout"), help: "Seconds a kept-alive connection may idle between requests.")
    var idleTimeout = 30.0

    @Option(
        name: .customLong("send-timeout"),
        help: "Seconds a client may take none of the response bytes queued for it before its connection is closed.")
    var sendTimeout = 10.0

    @Option(
        name: .customLong("max-connections-per-address"),
        help:
            "Connections one client address may hold open while descriptors run short (0: no cap); more are closed at once. Behind a proxy, give 0."
    )
    var maxConnectionsPerAddress = ServerConfiguration(root: ".").maxConnectionsPerAddress

    @Flag(
        name: .customLong("access-log"),
        help: "Write one line per request to stdout: time, client, method, target, status, bytes, duration (µs), cache hit or miss.")
    var accessLog = false

    /// The options `TILER_*` environment variables can set (see ``EnvironmentDefaults``).
    static let environmentOptions: [EnvironmentDefaults.Option] = [
        .init(name: "root", kind: .positional), .init(name: "host", kind: .value), .init(name: "port", kind: .value),
        .init(name: "cache-mb", kind: .value), .init(name: "public", kind: .value), .init(name: "threads", kind: .value),
        .init(name: "file-threads", kind: .value), .init(name: "open-files", kind: .value), .init(name: "public-url", kind: .value),
        .init(name: "trust-proxy", kind: .flag), .init(name: "iiif-max-width", kind: .value), .init(name: "iiif-max-height", kind: .value),
        .init(name: "iiif-max-area", kind: .value), .init(name: "iiif-threads", kind: .value), .init(name: "iiif-queue", kind: .value),
        .init(name: "iiif-render-mb", kind: .value),
        .init(name: "cors-origin", kind: .repeatable), .init(name: "log-level", kind: .value), .init(name: "log-format", kind: .value),
        .init(name: "access-log", kind: .flag), .init(name: "backlog", kind: .value), .init(name: "shutdown-grace", kind: .value),
        .init(name: "head-timeout", kind: .value), .init(name: "idle-timeout", kind: .value), .init(name: "send-timeout", kind: .value),
        .init(name: "max-connections-per-address", kind: .value),
    ]

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")) (got \(logLevel))")
        }
        guard (1...(1 << 20)).contains(backlog) else { throw ValidationError("--backlog must be 1…1048576 (got \(backlog))") }
        guard shutdownGrace > 0, shutdownGrace <= 3600 else {
            throw ValidationError("--shutdown-grace must be more than 0 and at most 3600 seconds (got \(shutdownGrace))")
        }
        for (name, seconds) in [("head-timeout", headTimeout), ("idle-timeout", idleTimeout), ("send-timeout", sendTimeout)] {
            guard seconds > 0, seconds <= 3600 else {
                throw ValidationError("--\(name) must be more than 0 and at most 3600 seconds (got \(seconds))")
            }
        }
        guard (0...(1 << 20)).contains(maxConnectionsPerAddress) else {
            throw ValidationError("--max-connections-per-address must be 0…1048576 (got \(maxConnectionsPerAddress))")
        }
        guard AccessLogFormat(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json (got \(logFormat))") }
        for origin in corsOrigins {
            if let problem = ServerConfiguration.corsOriginProblem(origin) { throw ValidationError("--cors-origin: \(problem)") }
        }
        if corsOrigins.count > 1 && corsOrigins.contains("*") {
            throw ValidationError("--cors-origin: * allows every origin; give it alone or list origins without it")
        }
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535 (got \(port))") }
        guard (0...(1 << 20)).contains(cacheMB) else { throw ValidationError("--cache-mb must be 0…1048576 (got \(cacheMB))") }
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1…256 (got \(threads))") }
        guard (1...256).contains(fileThreads) else { throw ValidationError("--file-threads must be 1…256 (got \(fileThreads))") }
        guard (0...(1 << 20)).contains(openFiles) else { throw ValidationError("--open-files must be 0…1048576 (got \(openFiles))") }
        guard (0...(1 << 20)).contains(iiifRenderMB) else { throw ValidationError("--iiif-render-mb must be 0…1048576 (got \(iiifRenderMB))") }
        do {
            try iiifConfiguration().validate()
        } catch {
            throw ValidationError("\(error)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("ROOT \(root) is not a folder")
        }
        if let publicDirectory {
            guard FileManager.default.fileExists(atPath: publicDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--public \(publicDirectory) is not a folder")
            }
        }
    }

    func run() throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        let format = AccessLogFormat(rawValue: logFormat) ?? .text
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: level, format: format) }
        var configuration = ServerConfiguration(root: root)
        configuration.logger = Logger(label: "tiler.server")
        configuration.corsOrigins = corsOrigins.isEmpty ? ["*"] : corsOrigins
        configuration.accessLog = accessLog ? format : nil
        configuration.listenBacklog = backlog
        configuration.shutdownGracePeriod = Self.duration(shutdownGrace)
        configuration.headTimeout = Self.duration(headTimeout)
        configuration.idleTimeout = Self.duration(idleTimeout)
        configuration.sendTimeout = Self.duration(sendTimeout)
        configuration.maxConnectionsPerAddress = maxConnectionsPerAddress
        configuration.host = host
        configuration.port = port
        configuration.cacheBytes = cacheMB << 20
        configuration.publicDirectory = publicDirectory
        configuration.eventLoopThreads = threads
        configuration.fileThreads = fileThreads
        configuration.openTileFilesPerLoop = openFiles
        configuration.iiif = iiifConfiguration()
        let settings = configuration
        let server: Server
        do {
            server = try BlockingBridge.run { try await Server.start(settings) }
        } catch {
            throw CommandFailure(Self.startFailure(error, host: host, port: port))
        }
        SignalHub.shared.setHandler { number in
            guard number == SIGHUP else {
                Task { await server.shutdown() }
                return
            }
            // An operator's reload: rescan ROOT now. Logs go to stdout and stderr, so there is no file to reopen.
            Task {
                let (added, removed) = await server.rescan()
                server.configuration.logger.notice("SIGHUP: rescanned ROOT (\(added) added, \(removed) removed)")
            }
        }
        defer { SignalHub.shared.clear() }
        // Unbuffered, so a script reading stdout learns the URL (and the port when --port 0) at once. In JSON mode
        // the banner is a JSON record too: stdout is then JSON lines only.
        var banner = ["Tiler is serving \(root) at \(server.url)"]
        if let openHint { banner.append("Open \(server.url)#image=\(openHint) in a browser.") }
        for line in banner {
            let text =
                format == .json
                ? LineLogHandler.line(
                    time: LineLogHandler.now(), level: .notice, label: "tiler.server", message: line,
                    metadata: ["url": "\(server.url)", "root": "\(root)"], format: .json)
                : line + "\n"
            FileHandle.standardOutput.write(Data(text.utf8))
        }
        BlockingBridge.run { await server.waitUntilStopped() }
    }

    /// `seconds` (validated: 0 < seconds ≤ 3600) as a duration, to the millisecond.
    private static func duration(_ seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// One line for a server that could not start; a busy port says so plainly instead of NIO's bind() text.
    static func startFailure(_ error: any Error, host: String, port: Int) -> String {
        let text = String(describing: error)
        if text.contains("errno: 98") || text.contains("Address already in use") {
            return "cannot listen on \(host):\(port): the address is already in use (is another server running? pick another --port)"
        }
        if text.contains("errno: 13") || text.contains("Permission denied") {
            return "cannot listen on \(host):\(port): permission denied (ports below 1024 need privileges)"
        }
        return text
    }

    private func iiifConfiguration() -> IIIFConfiguration {
        var iiif = IIIFConfiguration()
        iiif.publicURL = publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        iiif.trustProxy = trustProxy
        iiif.limits = IIIFLimits(maxWidth: iiifMaxWidth, maxHeight: iiifMaxHeight, maxArea: iiifMaxArea)
        iiif.renderThreads = iiifThreads
        iiif.renderQueueLimit = iiifQueue
        iiif.renderBudgetBytes = iiifRenderMB << 20
        return iiif
    }
}
