import Glibc
import HTTPCore
import Logging
import NIOCore
import NIOHTTP1
import ObjectStore

/// Everything ``Server/start(_:)`` needs: where the pyramids are, where to listen, and the limits that keep the
/// server well behaved. Defaults suit `tiler serve`; tests shorten the timeouts.
public struct ServerConfiguration: Sendable {
    /// The folder whose `*.dzi` pyramids are served (searched recursively, dot-files and dot-folders skipped); empty
    /// when only ``objectRoots`` are served (then nothing can be uploaded: uploads are sliced into ROOT).
    public var root: String
    /// Object-store roots served beside ROOT (or alone), in order: `s3://BUCKET/PREFIX`, credentials, region and
    /// endpoint from the AWS variables in ``environment`` (``ObjectStore/S3Configuration/fromEnvironment(_:environment:addressingStyle:)``).
    public var objectRoots: [String] = []
    /// How often the object-store roots are listed again (each listing is `ListObjectsV2`, a page per 1,000 objects).
    public var storeRescanInterval: Duration = .seconds(60)
    /// The environment the object-store roots' credentials and endpoints are read from; nil: the process's.
    public var environment: [String: String]?
    /// How the object-store roots' clients talk to their stores (``ObjectStore/ObjectStoreOptions``): 64 requests in
    /// flight (`--store-connections`), 3 s to connect and 10 s to answer a read (`--store-timeout`), three attempts.
    public var objectStoreOptions = ObjectStoreOptions(
        maxConcurrentRequests: 64, connectTimeout: .seconds(3), readTimeout: .seconds(10), requestTimeout: .seconds(10))
    /// The access policy file (``AccessPolicy/init(file:environment:)``), or nil: every image is public.
    public var accessFile: String?
    /// The address to bind, e.g. `127.0.0.1` (the default: local clients only) or `0.0.0.0`.
    public var host: String
    /// The TCP port; 0 asks the system for a free one (see ``Server/port``).
    public var port: Int
    /// The tile cache's budget, in bytes of cached responses (tile bytes plus a ~70-byte header each).
    public var cacheBytes: Int
    /// The folder of the browser viewer (`index.html` …), or `nil` to look for `Public/` beside the executable,
    /// then in the working directory. Without one, `GET /` answers 404.
    public var publicDirectory: String?
    /// Event loop threads (SwiftNIO), ≥ 1.
    public var eventLoopThreads: Int
    /// Threads that read files (tile misses, static files, catalog scans), ≥ 1.
    public var fileThreads: Int
    /// Tile files each event loop keeps open (like nginx's `open_file_cache`): a tile miss that the cache does not
    /// admit is sent straight from its file with `sendfile` when it is in the page cache, and an open file spares
    /// the `openat`, `fstat` and `close`. 0 turns this off (every miss is read into the cache). Capped at startup so
    /// that all loops together use at most half the process's descriptor limit.
    public var openTileFilesPerLoop: Int
    /// Whether to ask `cachestat(2)` if a tile file is all in the page cache before sending it with `sendfile`
    /// (true; where the kernel lacks it, the same as false). False: misses the cache does not admit are read without
    /// waiting and sent from memory instead. For tests of that fallback.
    var usesCachestat = true
    /// How long a client has to send a complete request — its head and any body it declares: from connecting, or
    /// from the first byte of a request on a kept-alive connection. A client that connects and sends nothing, or
    /// trickles header lines or a body, is disconnected when it runs out (with a 408 if it had sent anything).
    public var headTimeout: Duration
    /// How long a kept-alive connection may sit idle between requests before it is closed.
    public var idleTimeout: Duration
    /// How long a client may take none of the response bytes queued for it before the connection is closed and the
    /// bytes dropped, whatever the connection is doing (a send timeout).
    public var sendTimeout: Duration
    /// The largest body a `GET`, `HEAD` or `OPTIONS` request may carry, in bytes (read and ignored); a larger one,
    /// declared or sent, is answered 413 and the connection closed.
    public var maxRequestBodyBytes: Int
    /// The most connections one client address may hold open while descriptors run short (0: no cap); beyond it,
    /// new connections from that address are closed as soon as they are accepted, so that one address cannot take
    /// every descriptor. The cap applies only once the open connections reach ``perAddressCapThreshold``: a crowd of
    /// browsers behind one office or hospital NAT (6 connections each) is never refused while descriptors are
    /// plentiful. Behind a reverse proxy every connection comes from the proxy's address: give 0.
    public var maxConnectionsPerAddress: Int
    /// Open connections from which ``maxConnectionsPerAddress`` applies; `nil`: half the descriptors left for
    /// connections (three eighths of the descriptor limit: the rest is for tile files and level folders).
    public var perAddressCapThreshold: Int?
    /// The largest request head accepted (request line plus headers), in bytes; larger heads get 431 and the
    /// connection is closed.
    public var maxHeadBytes: Int
    /// The longest request path accepted (before and after percent-decoding), in bytes; longer → 400.
    public var maxPathBytes: Int
    /// How often ROOT is rescanned for pyramids that appeared, changed or disappeared.
    public var rescanInterval: Duration
    /// How deep below ROOT pyramids are looked for (0: only ROOT itself).
    public var maxScanDepth: Int
    /// How often a rescan lists every folder under ROOT, changed or not (rescans in between list only the folders
    /// whose modification time moved): what catches a `.dzi` rewritten in place. At least ``rescanInterval``.
    public var fullRescanInterval: Duration
    /// The most level folders held open for tile reads, shared by every pyramid (see ``levelDirectoryBudget``);
    /// `nil` (the default): an eighth of the process's descriptor limit, at least 64 (a quarter of a limit below 256)
    /// and at most 4096.
    public var levelDirectoryLimit: Int?
    /// On shutdown, how long in-flight requests may take before their connections are closed regardless.
    public var shutdownGracePeriod: Duration
    /// The listen backlog: connections the kernel queues before they are accepted (≥ 1; the kernel caps it at
    /// `net.core.somaxconn`, which ``effectiveBacklog`` applies).
    public var listenBacklog: Int
    /// The most tiles waiting to be loaded into the cache in the background after visible-rect queries (the
    /// newest viewport's first; 0 turns warming off).
    public var maxPrefetchTiles: Int
    /// The largest static file served from the public folder, in bytes.
    public var maxStaticFileBytes: Int
    /// The IIIF Image API service at `/iiif/3/`.
    public var iiif: IIIFConfiguration
    /// The web origins whose scripts may read the answers (CORS): `["*"]` (the default) for any, else a list of
    /// `scheme://host[:port]` origins, each answered by name with `Vary: Origin`.
    public var corsOrigins: [String]
    /// Whether to write one access-log line per request (see ``AccessLog``).
    public var accessLog: AccessLogFormat?
    /// The format of the server's log lines (and of the access log's, when written).
    public var logFormat: AccessLogFormat
    /// The largest upload, in bytes (see ``ServerSettings/maxUploadMB``).
    public var maxUploadBytes: Int
    /// Slicing jobs run at once (``ServerSettings/sliceJobs``).
    public var sliceJobs: Int
    /// The folder watched for images to slice (``ServerSettings/inbox``), or nil.
    public var inbox: String?
    /// The address of the metrics listener (``ServerSettings/metricsHost``).
    public var metricsHost: String
    /// The port of the metrics listener, which answers `/metrics` and `/healthz` alone (``ServerSettings/metricsPort``;
    /// 0 picks a free one, see ``Server/metricsPort``), or nil: no such listener.
    public var metricsPort: Int?
    /// The PEM certificate chain of HTTPS on ``port`` (``ServerSettings/tlsCert``), or nil: plain HTTP.
    public var tlsCertificate: String?
    /// The PEM private key of ``tlsCertificate`` (``ServerSettings/tlsKey``).
    public var tlsKey: String?
    /// `Strict-Transport-Security`'s max-age in seconds, sent in every answer over TLS (``ServerSettings/hsts``), or nil.
    public var hstsMaxAge: Int?
    /// The port of the plain-HTTP listener redirecting to HTTPS (``ServerSettings/redirectHTTP``; 0 picks one), or nil.
    public var redirectHTTPPort: Int?
    /// Whether a plain port also speaks cleartext HTTP/2 with prior knowledge (``ServerSettings/h2c``).
    public var cleartextHTTP2 = false
    /// Where the server logs (startup, catalog changes, errors — never one line per request).
    public var logger: Logger
    /// Called on a slicing thread, with the job's id, once a job's image can be viewed while it is sliced (its
    /// provisional pyramid is listed), before its finest tiles are written; the job goes on when it returns. For
    /// tests that look at the view while slicing without racing the slicer.
    var onViewable: (@Sendable (String) -> Void)?

    /// Creates a configuration serving `root`; every other setting has its default.
    public init(root: String) {
        self.root = root
        self.host = ServerSettings.host.defaultValue
        self.port = ServerSettings.port.defaultValue
        self.cacheBytes = ServerSettings.cacheMB.defaultValue << 20
        self.publicDirectory = nil
        self.eventLoopThreads = ServerSettings.threads.defaultValue
        self.fileThreads = ServerSettings.fileThreads.defaultValue
        self.openTileFilesPerLoop = ServerSettings.openFiles.defaultValue
        self.headTimeout = .seconds(ServerSettings.headTimeout.defaultValue)
        self.idleTimeout = .seconds(ServerSettings.idleTimeout.defaultValue)
        self.sendTimeout = .seconds(ServerSettings.sendTimeout.defaultValue)
        self.maxRequestBodyBytes = 16 << 10
        self.maxConnectionsPerAddress = ServerSettings.maxConnectionsPerAddress.defaultValue
        self.perAddressCapThreshold = nil
        self.maxHeadBytes = 16 << 10
        self.maxPathBytes = 2048
        self.rescanInterval = .seconds(1)
        self.maxScanDepth = 8
        self.fullRescanInterval = .seconds(60)
        self.levelDirectoryLimit = nil
        self.shutdownGracePeriod = .seconds(ServerSettings.shutdownGrace.defaultValue)
        self.listenBacklog = ServerSettings.backlog.defaultValue
        self.maxPrefetchTiles = 256
        self.maxStaticFileBytes = 64 << 20
        self.iiif = IIIFConfiguration()
        self.corsOrigins = ["*"]
        self.accessLog = nil
        self.logFormat = .text
        self.maxUploadBytes = ServerSettings.maxUploadMB.defaultValue << 20
        self.sliceJobs = ServerSettings.sliceJobs.defaultValue
        self.inbox = nil
        self.metricsHost = ServerSettings.metricsHost.defaultValue
        self.metricsPort = nil
        self.logger = Logger(label: "tiler.server")
    }
}

extension ServerConfiguration {
    /// The limits NIO's request decoder is given: no header line or header block longer than ``maxHeadBytes``, at
    /// most ``SimpleRequest/maxHeaderLines`` header lines (the limit ``SimpleRequestDecoder`` keeps too).
    var decoderLimits: NIOHTTPDecoderLimitConfiguration {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = maxHeadBytes
        limits.maxHeaderListSize = maxHeadBytes
        limits.maxHeaderFieldCount = SimpleRequest.maxHeaderLines
        return limits
    }
}

extension ServerConfiguration {
    /// What is wrong with this configuration's settings (``ServerSettings/all``), one line each naming its setting
    /// (`port must be 0…65535 (got -1)`); empty when nothing is.
    public func problems() -> [String] {
        ServerSettings.all.compactMap { $0.problem(self) } + tlsProblems()
    }

    /// Whether `text` names an object-store root rather than a folder: `s3://…`, or one SZI or TIFF on an HTTP(S)
    /// server (`https://HOST/PATH/NAME.szi`, `…/NAME.tif`).
    public static func isObjectRoot(_ text: String) -> Bool {
        text.lowercased().hasPrefix("s3://") || ServerRuntime.httpObject(text) != nil
    }

    /// Why `origin` cannot be a ``corsOrigins`` entry (one line), or `nil` when it can: `*`, or
    /// `scheme://host[:port]` as browsers send it in `Origin`.
    public static func corsOriginProblem(_ origin: String) -> String? {
        CORSPolicy.problem(with: origin)
    }
}

extension ServerConfiguration {
    /// ``listenBacklog`` capped by the kernel's `net.core.somaxconn` (read from `/proc`; uncapped if unreadable).
    var effectiveBacklog: Int {
        let limit = ProcFile.read("/proc/sys/net/core/somaxconn").flatMap { Int($0.filter(\.isNumber)) } ?? Int(Int32.max)
        return max(1, min(listenBacklog, limit))
    }
}

extension ServerConfiguration {
    /// The level folders held open when the process may open `descriptorLimit` descriptors: ``levelDirectoryLimit``,
    /// or an eighth of the limit within 64…4096 (a quarter, if less than 64, under a limit below 256) — leaving the
    /// rest to sockets and the open tile files.
    func levelDirectoryBudget(descriptorLimit: Int) -> Int {
        levelDirectoryLimit ?? min(4096, max(min(64, descriptorLimit / 4), descriptorLimit / 8))
    }

    /// How many scans make one full walk (see ``fullRescanInterval``), ≥ 1.
    var scansPerFullWalk: Int {
        max(1, Int(fullRescanInterval / rescanInterval))
    }
}
