import NIOCore

/// The IIIF service's settings, declared once like ``ServerSettings``: `tiler serve`'s options and `TILER_*`
/// variables, ``IIIFConfiguration``'s defaults and its validation derive from them.
public enum IIIFSettings {
    public static let publicURL = ServerSetting<String?>(
        "public-url",
        "The base URL clients reach this server at (e.g. https://images.example.org), for IIIF ids; set it in production (default: http://HOST from each request).",
        default: nil, accepts: "http:// or https://, a host[:port] and an optional path, with no trailing slash, query or fragment",
        valid: { $0.map(IIIFConfiguration.isPublicURL) ?? true }, read: { $0.iiif.publicURL },
        write: { configuration, value in
            // A trailing slash is forgiven: https://a.example/ is https://a.example.
            configuration.iiif.publicURL = value.map { $0.hasSuffix("/") && $0.count > 1 ? String($0.dropLast()) : $0 }
        })
    public static let trustProxy = ServerSetting<Bool>(
        "trust-proxy",
        "Build IIIF ids from the reverse proxy's Forwarded / X-Forwarded-Proto, -Host, -Prefix headers (only behind a proxy that sets them).",
        default: false, kind: .flag, read: { $0.iiif.trustProxy }, write: { $0.iiif.trustProxy = $1 })
    public static let maxWidth = ServerSetting<Int>(
        "iiif-max-width", "The widest IIIF output image, in pixels (1–65500).", default: 16384, accepts: "1…65500",
        valid: { (1...65500).contains($0) }, read: { $0.iiif.limits.maxWidth }, write: { $0.iiif.limits.maxWidth = $1 })
    public static let maxHeight = ServerSetting<Int>(
        "iiif-max-height", "The tallest IIIF output image, in pixels (1–65500).", default: 16384, accepts: "1…65500",
        valid: { (1...65500).contains($0) }, read: { $0.iiif.limits.maxHeight }, write: { $0.iiif.limits.maxHeight = $1 })
    public static let maxArea = ServerSetting<Int>(
        "iiif-max-area", "The most pixels in one IIIF output image.", default: 1 << 26, accepts: "1…2147483648",
        valid: { (1...(1 << 31)).contains($0) }, read: { $0.iiif.limits.maxArea }, write: { $0.iiif.limits.maxArea = $1 })
    public static let threads = ServerSetting<Int>(
        "iiif-threads", "Threads rendering IIIF images that are not stored tiles (half the cores by default).", default: max(1, System.coreCount / 2),
        accepts: "1…256", valid: { (1...256).contains($0) }, read: { $0.iiif.renderThreads }, write: { $0.iiif.renderThreads = $1 })
    public static let queue = ServerSetting<Int>(
        "iiif-queue", "IIIF renders that may wait for a thread; beyond that, 503 with Retry-After.", default: 16, accepts: "0…65536",
        valid: { (0...65536).contains($0) }, read: { $0.iiif.renderQueueLimit }, write: { $0.iiif.renderQueueLimit = $1 })
    public static let renderMB = ServerSetting<Int>(
        "iiif-render-mb", "MiB that IIIF renders and their unsent bodies may hold; beyond it, 503 with Retry-After (0: one render at a time).",
        default: 256, accepts: "0…1048576", valid: { (0...(1 << 20)).contains($0) }, read: { $0.iiif.renderBudgetBytes >> 20 },
        write: { $0.iiif.renderBudgetBytes = $1 << 20 })

    /// Every IIIF setting, in `--help` order.
    static let all: [AnyServerSetting] = [
        publicURL.erased, trustProxy.erased, maxWidth.erased, maxHeight.erased, maxArea.erased, threads.erased, queue.erased, renderMB.erased,
    ]
}
