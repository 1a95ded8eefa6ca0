import HTTPCore
import Logging
import NIOCore

/// Every setting an operator gives the server, each declared once: name, help, default, the values taken, and where
/// it goes in a ``ServerConfiguration`` (units converted: MiB to bytes, seconds to durations). `tiler serve`'s options
/// and `TILER_*` variables are these; ``ServerConfiguration``'s defaults are their defaults; the library validates a
/// configuration against them (``ServerConfiguration/problems()``), naming the setting.
public enum ServerSettings {
    public static let host = ServerSetting<String>(
        "host", "The address to listen on (0.0.0.0 for every interface).", default: "127.0.0.1", accepts: "an address",
        valid: { !$0.isEmpty }, read: { $0.host }, write: { $0.host = $1 })
    public static let port = ServerSetting<Int>(
        "port", "The TCP port; 0 picks a free one.", default: 8080, accepts: "0…65535", valid: { (0...65535).contains($0) },
        read: { $0.port }, write: { $0.port = $1 })
    public static let cacheMB = ServerSetting<Int>(
        "cache-mb", "The tile cache budget, in MiB.", default: 256, accepts: "0…1048576", valid: { (0...(1 << 20)).contains($0) },
        read: { $0.cacheBytes >> 20 }, write: { $0.cacheBytes = $1 << 20 })
    public static let threads = ServerSetting<Int>(
        "threads", "Event loop threads answering requests (default: one per core).", default: max(1, System.coreCount), accepts: "1…256",
        valid: { (1...256).contains($0) }, read: { $0.eventLoopThreads }, write: { $0.eventLoopThreads = $1 })
    public static let fileThreads = ServerSetting<Int>(
        "file-threads", "Threads reading tiles that are not in memory from the disk.", default: 2, accepts: "1…256",
        valid: { (1...256).contains($0) }, read: { $0.fileThreads }, write: { $0.fileThreads = $1 })
    public static let openFiles = ServerSetting<Int>(
        "open-files", "Tile files each event loop keeps open to send misses straight from the page cache (0: none; capped by the descriptor limit).",
        default: 4096, accepts: "0…1048576", valid: { (0...(1 << 20)).contains($0) }, read: { $0.openTileFilesPerLoop },
        write: { $0.openTileFilesPerLoop = $1 })
    public static let backlog = ServerSetting<Int>(
        "backlog", "Connections the kernel queues before they are accepted (capped by net.core.somaxconn).", default: 4096,
        accepts: "1…1048576", valid: { (1...(1 << 20)).contains($0) }, read: { $0.listenBacklog }, write: { $0.listenBacklog = $1 })
    public static let shutdownGrace = seconds(
        "shutdown-grace", "Seconds requests in flight may take after SIGTERM or SIGINT before their connections are closed.", default: 10,
        read: { $0.shutdownGracePeriod }, write: { $0.shutdownGracePeriod = $1 })
    public static let headTimeout = seconds(
        "head-timeout", "Seconds a client has to send a whole request (head and any body) from its first byte; then 408 and close.",
        default: 5, read: { $0.headTimeout }, write: { $0.headTimeout = $1 })
    public static let idleTimeout = seconds(
        "idle-timeout", "Seconds a kept-alive connection may idle between requests.", default: 30, read: { $0.idleTimeout },
        write: { $0.idleTimeout = $1 })
    public static let sendTimeout = seconds(
        "send-timeout", "Seconds a client may take none of the response bytes queued for it before its connection is reset.", default: 10,
        read: { $0.sendTimeout }, write: { $0.sendTimeout = $1 })
    public static let maxConnectionsPerAddress = ServerSetting<Int>(
        "max-connections-per-address",
        "Connections one client address may hold open while descriptors run short (0: no cap); more are closed at once. Behind a proxy, give 0.",
        default: 256, accepts: "0…1048576", valid: { (0...(1 << 20)).contains($0) }, read: { $0.maxConnectionsPerAddress },
        write: { $0.maxConnectionsPerAddress = $1 })
    public static let corsOrigin = ServerSetting<[String]>(
        "cors-origin",
        "An origin whose pages' scripts may read the answers, e.g. https://viewer.example.org (repeatable; default *: any origin).",
        default: [], kind: .repeatable, accepts: "* alone, or origins written scheme://host[:port]",
        valid: { origins in
            origins.allSatisfy { CORSPolicy.problem(with: $0) == nil } && !(origins.count > 1 && origins.contains("*"))
        }, read: { $0.corsOrigins == ["*"] ? [] : $0.corsOrigins }, write: { $0.corsOrigins = $1.isEmpty ? ["*"] : $1 })
    public static let logLevel = ServerSetting<String>(
        "log-level", "The least severe messages logged: trace, debug, info, notice, warning, error or critical.", default: "info",
        accepts: "one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))", valid: { Logger.Level(rawValue: $0) != nil },
        read: { $0.logger.logLevel.rawValue }, write: { $0.logger.logLevel = Logger.Level(rawValue: $1) ?? .info })
    public static let logFormat = ServerSetting<String>(
        "log-format", "text or json: the log's lines on stderr and the access log's on stdout.", default: "text", accepts: "text or json",
        valid: { AccessLogFormat(rawValue: $0) != nil }, read: { $0.logFormat.rawValue },
        write: { configuration, value in
            configuration.logFormat = AccessLogFormat(rawValue: value) ?? .text
            if configuration.accessLog != nil { configuration.accessLog = configuration.logFormat }
        })
    public static let accessLog = ServerSetting<Bool>(
        "access-log", "Write one line per request to stdout: time, client, method, target, status, bytes, duration (µs), cache hit or miss.",
        default: false, kind: .flag, read: { $0.accessLog != nil }, write: { $0.accessLog = $1 ? $0.logFormat : nil })

    /// `seconds` settings: more than 0 and at most an hour, kept to the millisecond.
    private static func seconds(
        _ name: String, _ help: String, default defaultValue: Double, read: @escaping @Sendable (ServerConfiguration) -> Duration,
        write: @escaping @Sendable (inout ServerConfiguration, Duration) -> Void
    ) -> ServerSetting<Double> {
        ServerSetting<Double>(
            name, help, default: defaultValue, accepts: "more than 0 and at most 3600 seconds", valid: { $0 > 0 && $0 <= 3600 },
            read: { configuration in
                let (seconds, attoseconds) = read(configuration).components
                return Double(seconds) + Double(attoseconds) / 1e18
            }, write: { configuration, value in write(&configuration, .milliseconds(Int64((value * 1000).rounded()))) })
    }
}

extension ServerSettings {
    /// The settings of the server itself, in `--help` order (the IIIF service's are in ``IIIFSettings``).
    static let server: [AnyServerSetting] =
        [
            host.erased, port.erased, cacheMB.erased, threads.erased, fileThreads.erased, openFiles.erased, corsOrigin.erased,
            logLevel.erased, logFormat.erased, accessLog.erased, backlog.erased, shutdownGrace.erased, headTimeout.erased, idleTimeout.erased,
            sendTimeout.erased, maxConnectionsPerAddress.erased,
        ] + tls

    /// Every setting: the server's, the viewer folder, the access policy, uploads and jobs, and the IIIF service's.
    public static let all: [AnyServerSetting] =
        server + [
            publicFolder.erased, access.erased, metricsHost.erased, metricsPort.erased, maxUploadMB.erased, sliceJobs.erased, inbox.erased,
            store.erased, storeRescan.erased, storeConnections.erased, storeTimeout.erased,
        ] + IIIFSettings.all
}

extension ServerSettings {
    /// The address of the metrics listener.
    public static let metricsHost = ServerSetting<String>(
        "metrics-host", "The address of the metrics listener (--metrics-port).", default: "127.0.0.1", accepts: "an address",
        valid: { !$0.isEmpty }, read: { $0.metricsHost }, write: { $0.metricsHost = $1 })
    /// The port of the metrics listener: `/metrics` and `/healthz` with every count, apart from the port clients use.
    public static let metricsPort = ServerSetting<Int?>(
        "metrics-port",
        "A second port answering /metrics and /healthz alone (0 picks a free one). Under --access the main port serves neither metrics nor any count, so give this to read them.",
        default: nil, accepts: "0…65535", valid: { $0.map { (0...65535).contains($0) } ?? true }, read: { $0.metricsPort },
        write: { $0.metricsPort = $1 })
}

extension ServerSettings {
    /// The viewer's folder.
    public static let publicFolder = ServerSetting<String?>(
        "public", "The viewer folder (default: Public/ beside the executable, else in the working directory).", default: nil,
        read: { $0.publicDirectory }, write: { $0.publicDirectory = $1 })
}

extension ServerSettings {
    /// The access policy file: which images are private, and the keys of tokens and signed tile URLs.
    public static let access = ServerSetting<String?>(
        "access",
        "An access policy file (JSON): image name prefixes mapped to public or private, a default, signing keys (see docs/private-images.md). Default: everything public.",
        default: nil, read: { $0.accessFile }, write: { $0.accessFile = $1 })
}

extension ServerSettings {
    /// The largest upload (`PUT /api/images/NAME`) taken, in MiB: a larger declared `Content-Length` is refused with
    /// 413 before a byte is written, a larger chunked body as it streams.
    public static let maxUploadMB = ServerSetting<Int>(
        "max-upload-mb", "The largest image an upload may send, in MiB (413 beyond; uploads need --access keys and a write token).",
        default: 4096, accepts: "1…1048576", valid: { (1...(1 << 20)).contains($0) }, read: { $0.maxUploadBytes >> 20 },
        write: { $0.maxUploadBytes = $1 << 20 })
    /// Slicing jobs (uploads and inbox files) run at once, each on its own low-priority thread.
    public static let sliceJobs = ServerSetting<Int>(
        "slice-jobs", "Uploads and inbox files sliced at once (each at a lower CPU priority than serving); the rest wait in line.",
        default: 1, accepts: "1…64", valid: { (1...64).contains($0) }, read: { $0.sliceJobs }, write: { $0.sliceJobs = $1 })
    /// Object-store roots served beside ROOT.
    public static let store = ServerSetting<[String]>(
        "store",
        "An object-store root served beside ROOT: s3://BUCKET/PREFIX (its *.szi, pyramidal TIFFs and Deep Zoom folders; AWS_* variables for keys and endpoint) or http(s)://HOST/PATH/NAME.szi or NAME.tif (repeatable).",
        default: [], kind: .repeatable, accepts: "s3://BUCKET[/PREFIX] or http(s)://HOST/PATH/NAME.szi (or NAME.tif)",
        valid: { roots in roots.allSatisfy { ($0.lowercased().hasPrefix("s3://") && $0.count > 5) || ServerRuntime.httpObject($0) != nil } },
        read: { $0.objectRoots }, write: { $0.objectRoots = $1 })
    /// Requests in flight to each object store.
    public static let storeConnections = ServerSetting<Int>(
        "store-connections", "Requests in flight to each s3:// root at most (its kept-alive connections); more wait in line.",
        default: 64, accepts: "1…1024", valid: { (1...1024).contains($0) }, read: { $0.objectStoreOptions.maxConcurrentRequests },
        write: { $0.objectStoreOptions.maxConcurrentRequests = $1 })
    /// How long a store may take.
    public static let storeTimeout = seconds(
        "store-timeout",
        "Seconds an s3:// root may take to answer one read (and at most 3 to connect) before it is tried again, then 504.",
        default: 10, read: { .nanoseconds($0.objectStoreOptions.requestTimeout.nanoseconds) },
        write: { configuration, timeout in
            let amount = TimeAmount(timeout)
            configuration.objectStoreOptions.requestTimeout = amount
            configuration.objectStoreOptions.readTimeout = amount
            configuration.objectStoreOptions.connectTimeout = min(amount, .seconds(3))
        })
    /// How often object-store roots are listed again.
    public static let storeRescan = seconds(
        "store-rescan", "Seconds between listings of each s3:// root (new, replaced and removed objects); SIGHUP lists at once.",
        default: 60, read: { $0.storeRescanInterval }, write: { $0.storeRescanInterval = $1 })
    /// The inbox folder.
    public static let inbox = ServerSetting<String?>(
        "inbox",
        "A folder watched for image files: each complete file is sliced into ROOT under its name, then moved to DIR/done/ (or DIR/failed/ with NAME.txt).",
        default: nil, read: { $0.inbox }, write: { $0.inbox = $1 })
}
