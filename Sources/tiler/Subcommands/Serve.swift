import ArgumentParser
import Foundation
import HTTPCore
import Logging
import TileServer
import TileSources

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
            (ID is the name with / written %2F), and the viewer at /. With --tls-cert and --tls-key the port speaks HTTPS. \
            Stops gracefully on SIGINT or SIGTERM; SIGHUP rescans ROOT and reads the TLS certificate and key again. \
            Every option can also be set by a TILER_* environment variable (TILER_PORT=9000, TILER_TRUST_PROXY=1, \
            TILER_CORS_ORIGIN=https://a.example,https://b.example, TILER_ROOT=/data); an option on the command line wins.
            """
    )

    // Every option is a setting declared once in TileServer's ServerSettings and IIIFSettings (name, help, default,
    // values taken): `@Option(S.port)` takes its name, help and default from there (Option+ServerSetting), the TILER_*
    // variables come from the list of every setting, and the library validates the configuration against the same.
    private typealias S = ServerSettings
    private typealias I = IIIFSettings

    @Argument(
        help: """
            The folder whose *.dzi pyramids and pyramidal TIFFs are served (searched recursively), or an object-store \
            root (s3://BUCKET/PREFIX) whose *.szi pyramids, pyramidal TIFFs and Deep Zoom folders are, or one SZI or TIFF \
            on an HTTP(S) server that answers ranges (https://HOST/PATH/NAME.szi); an S3 root's keys and endpoint from AWS_ACCESS_KEY_ID, \
            AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL, AWS_PROFILE and ~/.aws.
            """)
    var root: String = "."

    @Option(S.host) var host: String
    @Option(S.port) var port: Int
    @Option(S.cacheMB) var cacheMB: Int
    @Option(S.publicFolder) var publicDirectory: String?
    @Option(S.threads) var threads: Int
    @Option(S.fileThreads) var fileThreads: Int
    @Option(S.openFiles) var openFiles: Int
    @Option(S.tlsCert) var tlsCert: String?
    @Option(S.tlsKey) var tlsKey: String?
    @Option(S.hsts) var hsts: Int?
    @Option(S.redirectHTTP) var redirectHTTP: Int?
    @Flag(S.h2c) var h2c: Bool

    /// An image to name in the startup line as the one to open (the demo sets it).
    var openHint: String?

    @Option(I.publicURL) var publicURL: String?
    @Flag(I.trustProxy) var trustProxy: Bool
    @Option(I.maxWidth) var iiifMaxWidth: Int
    @Option(I.maxHeight) var iiifMaxHeight: Int
    @Option(I.maxArea) var iiifMaxArea: Int
    @Option(I.threads) var iiifThreads: Int
    @Option(I.queue) var iiifQueue: Int
    @Option(I.renderMB) var iiifRenderMB: Int
    @Option(S.corsOrigin) var corsOrigins: [String]
    @Option(S.logLevel) var logLevel: String
    @Option(S.logFormat) var logFormat: String
    @Option(S.backlog) var backlog: Int
    @Option(S.shutdownGrace) var shutdownGrace: Double
    @Option(S.headTimeout) var headTimeout: Double
    @Option(S.idleTimeout) var idleTimeout: Double
    @Option(S.sendTimeout) var sendTimeout: Double
    @Option(S.maxConnectionsPerAddress) var maxConnectionsPerAddress: Int
    @Flag(S.accessLog) var accessLog: Bool
    @Option(S.access) var access: String?
    @Option(S.metricsHost) var metricsHost: String
    @Option(S.metricsPort) var metricsPort: Int?
    @Option(S.maxUploadMB) var maxUploadMB: Int
    @Option(S.sliceJobs) var sliceJobs: Int
    @Option(S.inbox) var inbox: String?
    @Option(S.store) var stores: [String]
    @Option(S.storeRescan) var storeRescan: Double
    @Option(S.storeConnections) var storeConnections: Int
    @Option(S.storeTimeout) var storeTimeout: Double

    /// The options `TILER_*` environment variables can set (see ``EnvironmentDefaults``): every setting, and ROOT.
    static let environmentOptions: [EnvironmentDefaults.Option] =
        [.init(name: "root", kind: .positional)]
        + ServerSettings.all.map(EnvironmentDefaults.Option.init)

    /// The server's configuration from these options, each applied through its setting.
    func configuration() -> ServerConfiguration {
        var configuration = ServerConfiguration(root: Self.isObjectRoot(root) ? "" : root)
        S.host.apply(host, to: &configuration)
        S.port.apply(port, to: &configuration)
        S.cacheMB.apply(cacheMB, to: &configuration)
        S.publicFolder.apply(publicDirectory, to: &configuration)
        S.threads.apply(threads, to: &configuration)
        S.fileThreads.apply(fileThreads, to: &configuration)
        S.openFiles.apply(openFiles, to: &configuration)
        S.tlsCert.apply(tlsCert, to: &configuration)
        S.tlsKey.apply(tlsKey, to: &configuration)
        S.hsts.apply(hsts, to: &configuration)
        S.redirectHTTP.apply(redirectHTTP, to: &configuration)
        S.h2c.apply(h2c, to: &configuration)
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
        S.store.apply(stores, to: &configuration)
        S.storeRescan.apply(storeRescan, to: &configuration)
        S.storeConnections.apply(storeConnections, to: &configuration)
        S.storeTimeout.apply(storeTimeout, to: &configuration)
        // ROOT itself may be an object-store root: then it is the first.
        if Self.isObjectRoot(root) { configuration.objectRoots.insert(root, at: 0) }
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
        if ["http://", "https://"].contains(where: { root.lowercased().hasPrefix($0) }) && !Self.isObjectRoot(root) {
            throw ValidationError(
                "ROOT \(root): a plain HTTP folder cannot be listed; give a folder, s3://BUCKET/PREFIX or http(s)://HOST/PATH/NAME.szi (or NAME.tif)")
        }
        // Before applying: a value the configuration cannot hold (an unknown log level) must not be mapped away.
        for problem in [S.logLevel.problem(with: logLevel), S.logFormat.problem(with: logFormat)].compactMap({ $0 }) {
            throw ValidationError("--" + problem)
        }
        if let problem = configuration().problems().first {
            throw ValidationError("--" + problem)
        }
        var isDirectory: ObjCBool = false
        guard Self.isObjectRoot(root) || (FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory) && isDirectory.boolValue) else {
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
            // An operator's reload: rescan ROOT now, and take a renewed certificate. Logs go to stdout and stderr, so
            // there is no file to reopen.
            Task {
                let (added, removed) = await server.rescan()
                server.configuration.logger.notice("SIGHUP: rescanned ROOT (\(added) added, \(removed) removed)")
                await server.reloadTLS()
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

    /// Whether `text` names an object-store root rather than a folder.
    static func isObjectRoot(_ text: String) -> Bool {
        ServerConfiguration.isObjectRoot(text)
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
