import HTTPCore
import NIOCore
import Rendering

/// The settings of the IIIF Image API 3.0 service at `/iiif/3/`.
public struct IIIFConfiguration: Sendable {
    /// The base URL clients reach the server at — scheme, host, port and any path a reverse proxy adds, without a
    /// trailing slash, e.g. `https://images.example.org` — from which every image's `id` is built
    /// (`{publicURL}/iiif/3/{identifier}`). `nil`: `http://` and the request's `Host` header.
    public var publicURL: String?
    /// Whether a reverse proxy's `Forwarded` / `X-Forwarded-Proto`, `-Host`, `-Prefix` headers decide the base URL
    /// when ``publicURL`` is not set (see ``ForwardedBase``). Off by default: only a proxy that sets (or strips) these
    /// headers itself may be trusted, or clients could choose the URLs the server writes.
    public var trustProxy: Bool
    /// The largest output image.
    public var limits: IIIFLimits
    /// Threads that render images (requests that are not stored tiles), ≥ 1.
    public var renderThreads: Int
    /// Renders that may wait for a render thread; beyond it requests get 503 with `Retry-After` (≥ 0).
    public var renderQueueLimit: Int
    /// The quality of JPEG output, 1–100.
    public var jpegQuality: Int
    /// The memory renders may hold, in bytes (0…1 TiB): each render counts from its start (its estimated working
    /// rows and body) until its body has been written to the socket or its connection has closed, so bodies waiting
    /// for clients that do not read count too. A render that does not fit gets 503 with `Retry-After`; one render is
    /// admitted whatever its size when nothing is held (so 0 means one render at a time).
    public var renderBudgetBytes: Int

    /// The defaults: ids from the `Host` header, ``IIIFLimits/init(maxWidth:maxHeight:maxArea:)``'s limits, half the
    /// cores rendering (at least one) with 16 waiting, JPEG quality 90, 256 MiB for renders.
    public init() {
        publicURL = IIIFSettings.publicURL.defaultValue
        trustProxy = IIIFSettings.trustProxy.defaultValue
        limits = IIIFLimits(
            maxWidth: IIIFSettings.maxWidth.defaultValue, maxHeight: IIIFSettings.maxHeight.defaultValue, maxArea: IIIFSettings.maxArea.defaultValue)
        renderThreads = IIIFSettings.threads.defaultValue
        renderQueueLimit = IIIFSettings.queue.defaultValue
        jpegQuality = 90
        renderBudgetBytes = IIIFSettings.renderMB.defaultValue << 20
    }

    /// The request headers the IIIF answers that hold an absolute URL (image information, the base URI's redirect,
    /// images' canonical `Link`) depend on, as a `Vary` list: `Host`, and the forwarding headers when they are
    /// trusted; nil when ``publicURL`` pins the URL, so that no answer depends on what the client sent. A shared cache
    /// that keys those answers by URL alone would otherwise hand one client's host to the next.
    public var hostVary: String? {
        guard publicURL == nil else { return nil }
        return trustProxy ? "Host, Forwarded, X-Forwarded-Proto, X-Forwarded-Host, X-Forwarded-Prefix" : "Host"
    }

    /// Whether `url` is `http://` or `https://`, a valid `host[:port]` and a plain path prefix without a trailing
    /// slash (see ``URLParts``).
    static func isPublicURL(_ url: String) -> Bool {
        let rest: Substring
        if url.hasPrefix("https://") {
            rest = url.dropFirst(8)
        } else if url.hasPrefix("http://") {
            rest = url.dropFirst(7)
        } else {
            return false
        }
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let path = rest[slash...]
        guard URLParts.isAuthority(rest[..<slash]), path.last != "/" else { return false }
        return path.isEmpty || URLParts.pathPrefix(path) != nil
    }

    /// Checks the settings that are not operators' (``IIIFSettings`` validates theirs, see
    /// ``ServerConfiguration/problems()``).
    ///
    /// - Throws: ``ServerError`` naming the first bad setting.
    public func validate() throws(ServerError) {
        guard (1...100).contains(jpegQuality) else { throw ServerError("the IIIF JPEG quality must be 1–100") }
    }
}
