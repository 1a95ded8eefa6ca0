import NIOCore

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
        publicURL = nil
        trustProxy = false
        limits = IIIFLimits()
        renderThreads = max(1, System.coreCount / 2)
        renderQueueLimit = 16
        jpegQuality = 90
        renderBudgetBytes = 256 << 20
    }

    /// Checks the settings.
    ///
    /// - Throws: ``ServerError`` naming the first bad setting.
    public func validate() throws(ServerError) {
        if let publicURL {
            guard publicURL.hasPrefix("http://") || publicURL.hasPrefix("https://"), !publicURL.hasSuffix("/"),
                !publicURL.contains(where: { $0 == "?" || $0 == "#" || $0 == " " })
            else {
                throw ServerError("the public URL must start with http:// or https:// and have no trailing slash, query or fragment")
            }
        }
        guard (1...65500).contains(limits.maxWidth), (1...65500).contains(limits.maxHeight) else {
            throw ServerError("the IIIF maximum width and height must be 1…65500 pixels (JPEG's limit)")
        }
        guard (1...(1 << 31)).contains(limits.maxArea) else { throw ServerError("the IIIF maximum area must be 1…2^31 pixels") }
        guard renderThreads >= 1, renderQueueLimit >= 0 else { throw ServerError("IIIF render threads must be ≥ 1 and the queue ≥ 0") }
        guard (1...100).contains(jpegQuality) else { throw ServerError("the IIIF JPEG quality must be 1–100") }
        guard (0...(1 << 40)).contains(renderBudgetBytes) else { throw ServerError("the IIIF render budget must be 0…1 TiB") }
    }
}
