import NIOCore

extension Router {
    /// Tile (`level`, `column`, `row`) of image `name` in `format`: from the cache, or as a miss.
    func tileResponse(name: Substring, tile: TileAddress, format: Substring, exchange: Exchange) -> Response {
        guard let image = catalog.image(named: name) else { return .error(.notFound("no image named \(name)")) }
        guard format == image.descriptor.format, image.contains(tile) else {
            return .error(.notFound("\(image.name) has no tile \(tile.level)/\(tile.column)_\(tile.row).\(format)"))
        }
        let key = TileKey(image: image.id, address: tile)
        if let file = tiles.cached(key) {
            return .file(file, profile: image.tileProfile, extraHeaders: services.blocks.cacheHit)
        }
        return missResponse(key, of: image, extraHeaders: services.blocks.cacheMiss, route: exchange.route)
    }

    /// Tile `key` of `image`, which was not cached, as ``TileLookup/miss(_:of:onRead:)`` finds it.
    func missResponse(_ key: TileKey, of image: CatalogImage, extraHeaders: ByteBuffer, route: RouteLabel) -> Response {
        let services = self.services
        let deliver = self.deliver
        let miss = tiles.miss(key, of: image) { result in
            deliver(Self.response(to: result, profile: image.tileProfile, extraHeaders: extraHeaders, route: route, services: services))
        }
        switch miss {
        case .sendFile(let file):
            return .openFile(file, profile: image.tileProfile, extraHeaders: extraHeaders)
        case .read(let result):
            return Self.response(to: result, profile: image.tileProfile, extraHeaders: extraHeaders, route: route, services: services)
        case .reading:
            return .later
        }
    }
}
