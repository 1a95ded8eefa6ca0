import NIOCore

extension Router {
    /// Tile (`level`, `column`, `row`) of image `name` (`NAME@VERSION` or `NAME`) in `format`: from the cache, or
    /// as a miss; immutable under the current version, revalidated without one, 404 under an old one.
    func tileResponse(name: Substring, tile: TileAddress, format: Substring, exchange: inout Exchange) -> Response {
        let image: CatalogImage
        let versioned: Bool
        switch catalog.resolve(name) {
        case .current(let found, let isVersioned):
            (image, versioned) = (found, isVersioned)
        case .stale(let found):
            return .error(.notFound(Self.staleMessage(found)))
        case .missing:
            return .error(.notFound("no image named \(name)"))
        }
        guard format == image.descriptor.format, image.contains(tile) else {
            return .error(.notFound("\(image.name) has no tile \(tile.level)/\(tile.column)_\(tile.row).\(format)"))
        }
        let key = TileKey(image: image.id, address: tile)
        let profile = services.blocks.tile(format: image.descriptor.format, versioned: versioned)
        if let file = tiles.cached(key) {
            exchange.cache = .hit
            return .file(file, profile: profile, extraHeaders: services.blocks.cacheHit)
        }
        exchange.cache = .miss
        return missResponse(key, of: image, profile: profile, extraHeaders: services.blocks.cacheMiss, exchange: &exchange)
    }

    /// Tile `key` of `image`, which was not cached, as ``TileLookup/miss(_:of:onRead:)`` finds it, answered with
    /// `profile`; a miss that waits for a read already under way is marked a join in `exchange`.
    func missResponse(
        _ key: TileKey, of image: CatalogImage, profile: ResponseProfile, extraHeaders: ByteBuffer, exchange: inout Exchange
    ) -> Response {
        let route = exchange.route
        let services = self.services
        let deliver = self.deliver
        let miss = tiles.miss(key, of: image) { result in
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
