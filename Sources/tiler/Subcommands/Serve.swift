import ArgumentParser
import Foundation
import HTTPCore
import Logging
import TileServer

/// `tiler serve`: serves every `*.dzi` pyramid and pyramidal TIFF under ROOT over HTTP until SIGINT or SIGTERM.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve every *.dzi pyramid and pyramidal TIFF under ROOT over HTTP, with the viewer.",
        discussion: """
            Pyramids are named by their path relative to ROOT without .dzi (ROOT/maps/city.dzi is "maps/city") and \
            appear and disappear while serving; pyramidal TIFF, BigTIFF, OME-TIFF and Aperio SVS files (*.tif, *.tiff, \
            *.btf, *.tf8, *.svs) are served in place, named without their extension, and so are the whole-slide images \
            OpenSlide reads (*.ndpi, *.vms, *.vmu, *.mrxs, *.scn, *.bif, *.svslide, and TIFFs the TIFF reader does not serve). \
            Routes: /api/images, /api/images/NAME/visible?x=&y=&width=&height=&zoomScale=[&contentScale=][&prefetch=], \
            /api/images/NAME/properties, /api/images/NAME/associated/KIND (a slide's label, macro, thumbnail), /images/NAME.dzi, /images/NAME_files/L/C_R.EXT, /healthz, \
            /metrics, the IIIF Image API 3.0 (level 2) at /iiif/3/ID/info.json and /iiif/3/ID/REGION/SIZE/ROTATION/QUALITY.FORMAT \
            (ID is the name with / written %2F), and the viewer at /. Stops gracefully on SIGINT or SIGTERM; SIGHUP rescans ROOT. \
            Every option can also be set by a TILER_* environment variable (TILER_PORT=9000, TILER_TRUST_PROXY=1, \
            TILER_CORS_ORIGIN=https://a.example,https://b.example, TILER_ROOT=/data); an option on the command line wins.
            """
    )

    // Every option is a setting declared once in TileServer's ServerSettings and IIIFSettings (name, help, default,
    // values taken): this command, its TILER_* variables and the library's validation all derive from those.
    private typealias S = ServerSettings
    private typealias I = IIIFSettings

    @Argument(help: "The folder whose *.dzi pyramids and pyramidal TIFFs are served (searched recursively).")
    var root: String = "."

    @Option(name: .customLong(S.host.name), help: ArgumentHelp(S.host.help))
    var host = S.host.defaultValue

    @Option(name: .customLong(S.port.name), help: ArgumentHelp(S.port.help))
    var port = S.port.defaultValue

    @Option(name: .customLong(S.cacheMB.name), help: ArgumentHelp(S.cacheMB.help))
    var cacheMB = S.cacheMB.defaultValue

    @Option(name: .customLong(S.publicFolder.name), help: ArgumentHelp(S.publicFolder.help))
    var publicDirectory: String?

    @Option(name: .customLong(S.threads.name), help: ArgumentHelp(S.threads.help))
    var threads = S.threads.defaultValue

    @Option(name: .customLong(S.fileThreads.name), help: ArgumentHelp(S.fileThreads.help))
    var fileThreads = S.fileThreads.defaultValue

    @Option(name: .customLong(S.openFiles.name), help: ArgumentHelp(S.openFiles.help))
    var openFiles = S.openFiles.defaultValue

    /// An image to name in the startup line as the one to open (the demo sets it).
    var openHint: String?

    @Option(name: .customLong(I.publicURL.name), help: ArgumentHelp(I.publicURL.help))
    var publicURL: String?

    @Flag(name: .customLong(I.trustProxy.name), help: ArgumentHelp(I.trustProxy.help))
    var trustProxy = I.trustProxy.defaultValue

    @Option(name: .customLong(I.maxWidth.name), help: ArgumentHelp(I.maxWidth.help))
    var iiifMaxWidth = I.maxWidth.defaultValue

    @Option(name: .customLong(I.maxHeight.name), help: ArgumentHelp(I.maxHeight.help))
    var iiifMaxHeight = I.maxHeight.defaultValue

    @Option(name: .customLong(I.maxArea.name), help: ArgumentHelp(I.maxArea.help))
    var iiifMaxArea = I.maxArea.defaultValue

    @Option(name: .customLong(I.threads.name), help: ArgumentHelp(I.threads.help))
    var iiifThreads = I.threads.defaultValue

    @Option(name: .customLong(I.queue.name), help: ArgumentHelp(I.queue.help))
    var iiifQueue = I.queue.defaultValue

    @Option(name: .customLong(I.renderMB.name), help: ArgumentHelp(I.renderMB.help))
    var iiifRenderMB = I.renderMB.defaultValue

    @Option(name: .customLong(S.corsOrigin.name), help: ArgumentHelp(S.corsOrigin.help))
    var corsOrigins = S.corsOrigin.defaultValue

    @Option(name: .customLong(S.logLevel.name), help: ArgumentHelp(S.logLevel.help))
    var logLevel = S.logLevel.defaultValue

    @Option(name: .customLong(S.logFormat.name), help: ArgumentHelp(S.logFormat.help))
    var logFormat = S.logFormat.defaultValue

    @Option(name: .customLong(S.backlog.name), help: ArgumentHelp(S.backlog.help))
    var backlog = S.backlog.defaultValue

    @Option(name: .customLong(S.shutdownGrace.name), help: ArgumentHelp(S.shutdownGrace.help))
    var shutdownGrace = S.shutdownGrace.defaultValue

    @Option(name: .customLong(S.headTimeout.name), help: ArgumentHelp(S.headTimeout.help))
    var headTimeout = S.headTimeout.defaultValue

    @Option(name: .customLong(S.idleTimeout.name), help: ArgumentHelp(S.idleTimeout.help))
    var idleTimeout = S.idleTimeout.defaultValue

    @Option(name: .customLong(S.sendTimeout.name), help: ArgumentHelp(S.sendTimeout.help))
    var sendTimeout = S.sendTimeout.defaultValue

    @Option(name: .customLong(S.maxConnectionsPerAddress.name), help: ArgumentHelp(S.maxConnectionsPerAddress.help))
    var maxConnectionsPerAddress = S.maxConnectionsPerAddress.defaultValue

    @Flag(name: .customLong(S.accessLog.name), help: ArgumentHelp(S.accessLog.help))
    var accessLog = S.accessLog.defaultValue

    @Option(name: .customLong(S.access.name), help: ArgumentHelp(S.access.help))
    var access: String?

    @Option(name: .customLong(S.metricsHost.name), help: ArgumentHelp(S.metricsHost.help))
    var metricsHost = S.metricsHost.defaultValue

    @Option(name: .customLong(S.metricsPort.name), help: ArgumentHelp(S.metricsPort.help))
    var metricsPort: Int?

    @Option(name: .customLong(S.maxUploadMB.name), help: ArgumentHelp(S.maxUploadMB.help))
    var maxUploadMB = S.maxUploadMB.defaultValue

    @Option(name: .customLong(S.sliceJobs.name), help: ArgumentHelp(S.sliceJobs.help))
    var sliceJobs = S.sliceJobs.defaultValue

    @Option(name: .customLong(S.inbox.name), help: ArgumentHelp(S.inbox.help))
    var inbox: String?

    /// The options `TILER_*` environment variables can set (see ``EnvironmentDefaults``): every setting, and ROOT.
    static let environmentOptions: [EnvironmentDefaults.Option] =
        [.init(name: "root", kind: .positional)]
        + ServerSettings.all.map { setting in
            switch setting.kind {
            case .value: .init(name: setting.name, kind: .value)
            case .repeatable: .init(name: setting.name, kind: .repeatable)
            case .flag: .init(name: setting.name, kind: .flag)
            }
        }

    /// The server's configuration from these options, each applied through its setting.
    func configuration() -> ServerConfiguration {
        var configuration = ServerConfiguration(root: root)
        S.host.apply(host, to: &configuration)
        S.port.apply(port, to: &configuration)
        S.cacheMB.apply(cacheMB, to: &configuration)
        S.publicFolder.apply(publicDirectory, to: &configuration)
        S.threads.apply(threads, to: &configuration)
        S.fileThreads.apply(fileThreads, to: &configuration)
        S.openFiles.apply(openFiles, to: &configuration)
        S.corsOrigin.apply(corsOrigins, to: &configuration)
        S.logLevel.apply(logLevel, to: &configuration)
        S.logFormat.apply(logFormat, to: &configuration)
        S.accessLog.apply(accessLog, to: &configuration)
        S.backlog.apply(backlog, to: &configuration)
        S.shutdownGrace.apply(shutdownGrace, to: &configuration)
        S.headTimeout.apply(headTimeout, to: &configuration)
        S.idleTimeout.apply(idleTimeout, to: &configuration)
        S.sendTimeout.apply(sendTimeout, to: &configuration)
        S.maxConnectionsPerAddress.apply(maxConnectionsPerAddress, to: &configuration)
        S.access.apply(access, to: &configuration)
        S.metricsHost.apply(metricsHost, to: &configuration)
        S.metricsPort.apply(metricsPort, to: &configuration)
        S.maxUploadMB.apply(maxUploadMB, to: &configuration)
        S.sliceJobs.apply(sliceJobs, to: &configuration)
        S.inbox.apply(inbox, to: &configuration)
        I.publicURL.apply(publicURL, to: &configuration)
        I.trustProxy.apply(trustProxy, to: &configuration)
        I.maxWidth.apply(iiifMaxWidth, to: &configuration)
        I.maxHeight.apply(iiifMaxHeight, to: &configuration)
        I.maxArea.apply(iiifMaxArea, to: &configuration)
        I.threads.apply(iiifThreads, to: &configuration)
        I.queue.apply(iiifQueue, to: &configuration)
        I.renderMB.apply(iiifRenderMB, to: &configuration)
        return configuration
    }

    /// Checks every setting (the library's checks, each naming its setting, written here as its option) and the
    /// folders.
    func validate() throws {
        // Before applying: a value the configuration cannot hold (an unknown log level) must not be mapped away.
        for problem in [S.logLevel.problem(with: logLevel), S.logFormat.problem(with: logFormat)].compactMap({ $0 }) {
            throw ValidationError("--" + problem)
        }
        if let problem = configuration().problems().first {
            throw ValidationError("--" + problem)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw ValidationError("ROOT \(root) is not a folder")
        }
        if let access {
            do {
                _ = try AccessPolicy(file: access, environment: ProcessInfo.processInfo.environment)
            } catch {
                throw ValidationError("--access: \(error.message)")
            }
        }
        if let publicDirectory {
            guard FileManager.default.fileExists(atPath: publicDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw ValidationError("--public \(publicDirectory) is not a folder")
            }
        }
    }

    func run() throws {
        var configuration = configuration()
        let level = configuration.logger.logLevel
        let format = configuration.logFormat
        LoggingSystem.bootstrap { label in LineLogHandler(label: label, level: level, format: format) }
        configuration.logger = Logger(label: "tiler.server")
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
}
