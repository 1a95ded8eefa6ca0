import Glibc
import HTTPCore
import NIOCore
import TileSources

extension Router {
    /// Tile (`level`, `column`, `row`) of image `name` (`NAME@VERSION` or `NAME`) in `format`: from the cache, or
    /// as a miss; immutable under the current version, revalidated without one, 404 under an old one. A private
    /// image's tile (`grant` not open) is cached by shared caches only until its signature expires.
    func tileResponse(name: Substring, tile: TileAddress, format: String, grant: AccessGrant, exchange: inout Exchange) -> Response {
        let image: CatalogImage
        let versioned: Bool
        switch catalog.resolve(name) {
        case .current(let found, let isVersioned):
            (image, versioned) = (found, isVersioned)
        case .stale(let found):
            return provisionalResponse(name: name, tile: (tile, format)) ?? .error(.notFound(Self.staleMessage(found)))
        case .missing:
            return provisionalResponse(name: name, tile: (tile, format)) ?? .error(.notFound("no image named \(name)"))
        }
        guard format == image.descriptor.format, image.contains(tile) else {
            return .error(.notFound("\(image.name) has no tile \(tile.level)/\(tile.column)_\(tile.row).\(format)"))
        }
        let key = TileKey(image: image.id, address: tile)
        guard grant.isOpen else {
            return privateTileResponse(key, of: image, grant: grant, exchange: &exchange)
        }
        let profile = services.blocks.tile(format: image.descriptor.format, versioned: versioned)
        if let file = tiles.cached(key) {
            exchange.cache = .hit
            return .file(file, profile: profile, extraHeaders: services.blocks.cacheHit)
        }
        exchange.cache = .miss
        return missResponse(key, of: image, profile: profile, extraHeaders: services.blocks.cacheMiss, exchange: &exchange)
    }

    /// A private image's tile: `Cache-Control` lets shared caches keep a signed URL's answer until the signature
    /// expires (never longer), and keeps a bearer's answer out of them.
    private func privateTileResponse(_ key: TileKey, of image: CatalogImage, grant: AccessGrant, exchange: inout Exchange) -> Response {
        let profile = services.blocks.privateTile(format: image.descriptor.format)
        let cached = tiles.cached(key)
        exchange.cache = cached == nil ? .miss : .hit
        let lines: ByteBuffer
        if case .signed(let expires) = grant {
            lines = memo.signedTileLines(expires: expires, now: WallClock.seconds(), hit: cached != nil)
        } else {
            lines = ByteBuffer(string: privateCacheControl(grant) + (cached == nil ? "X-Cache: miss\r\n" : "X-Cache: hit\r\n"))
        }
        if let file = cached {
            return .file(file, profile: profile, extraHeaders: lines)
        }
        return missResponse(key, of: image, profile: profile, extraHeaders: lines, exchange: &exchange)
    }

    /// The `Cache-Control` line of a private image's tile: shared caches may keep a signed URL's answer until the
    /// signature expires, never longer; a bearer's answer is for the bearer only.
    func privateCacheControl(_ grant: AccessGrant) -> String {
        if case .signed(let expires) = grant {
            return AccessPolicy.signedCacheControlLine(expires: expires, now: WallClock.seconds())
        }
        return "Cache-Control: private, no-cache\r\n"
    }

    /// Tile `key` of `image`, which was not cached, as ``TileLookup/miss(_:of:job:onRead:)`` finds it, answered with
    /// `profile`. A tile of a stored pyramid may have to be made from its pixels: the exchange then holds a job the
    /// connection cancels if the client goes, so that a tile nobody waits for any more is not made. A miss that waits
    /// for a read already under way is marked a join in `exchange`.
    func missResponse(
        _ key: TileKey, of image: CatalogImage, profile: ResponseProfile, extraHeaders: ByteBuffer, exchange: inout Exchange
    ) -> Response {
        let services = self.services
        let deliver = self.deliver
        let route = exchange.route
        var job: RenderJob?
        if image.source.makesTiles {
            job = RenderJob(onDrop: {})
            exchange.work = job
        }
        let miss = tiles.miss(key, of: image, job: job) { [job] result in
            if case .failure(let error) = result, error is CancellationError, let job, !job.isCancelled {
                // Every other request for the tile had gone and it was not made; this one still wants it (asked once more:
                // while shutting down it gets the cancellation).
                services.tiles.loadAgain(key, of: image, job: job) { again in
                    deliver(Self.response(to: again, profile: profile, extraHeaders: extraHeaders, route: route, services: services))
                }
                return
            }
            deliver(Self.response(to: result, profile: profile, extraHeaders: extraHeaders, route: route, services: services))
        }
        switch miss {
        case .sendFile(let file):
            return .openFile(file, profile: profile, extraHeaders: extraHeaders)
        case .read(let result):
            return Self.response(to: result, profile: profile, extraHeaders: extraHeaders, route: route, services: services)
        case .reading:
            return .later
        case .joined:
            exchange.cache = .join
            return .later
        }
    }

    /// The 404 message for a URL under a version `image` no longer has.
    static func staleMessage(_ image: CatalogImage) -> String {
        "\(image.name) was re-sliced: its current version is \(image.version) (\(image.versionedPrefix).dzi)"
    }

    /// The image a URL's name means, or the 404 to answer (no such image, or an old version).
    func lookup(_ name: Substring) -> Result<(image: CatalogImage, versioned: Bool), RequestError> {
        switch catalog.resolve(name) {
        case .current(let image, let versioned): .success((image, versioned))
        case .stale(let image): .failure(.notFound(Self.staleMessage(image)))
        case .missing: .failure(.notFound("no image named \(name)"))
        }
    }
}
