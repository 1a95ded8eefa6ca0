import NIOCore

extension Router {
    /// Tile (`level`, `column`, `row`) of image `name` in `format`: from the cache, or as a miss.
    func tileResponse(name: Substring, tile: TileAddress, format: Substring, exchange: Exchange) -> Response {
        guard let image = catalog.image(named: name) else { return .error(.notFound("no image named \(name)")) }
        guard format == image.descriptor.format, image.contains(tile) else {
            return .error(.notFound("\(image.name) has no tile \(tile.level)/\(tile.column)_\(tile.row).\(format)"))
        }
        let key = TileKey(image: image.id, address: tile)
        if let file = services.tiles.cached(key) {
            return .file(file, profile: image.tileProfile, extraHeaders: services.blocks.cacheHit)
        }
        return missResponse(key, of: image, extraHeaders: services.blocks.cacheMiss, route: exchange.route)
    }

    /// Tile `key` of `image`, which was not cached. When the cache is full and does not admit the tile (it was not
    /// asked for more often lately than the tile it would evict), the tile is answered from its open file without
    /// entering the cache: sent as it is (`sendfile`, nothing copied into the process) when `cachestat` says it is all
    /// in the page cache; where the kernel cannot tell (before Linux 6.5), read without waiting (`RWF_NOWAIT`) and
    /// sent. Otherwise the tile is read into the cache: at once when the store can read it without waiting (page
    /// cache), else ``Response/later``, once a file thread has.
    func missResponse(_ key: TileKey, of image: CatalogImage, extraHeaders: ByteBuffer, route: RouteLabel) -> Response {
        let tiles = services.tiles
        let file = openTiles.file(for: key, of: image, maxBytes: tiles.maxTileBytes)
        if let file, !tiles.cache.admits(key, cost: file.cost) {
            switch services.configuration.usesCachestat ? file.isInPageCache : nil {
            case true?:
                tiles.countFileSend()
                return .openFile(file, profile: image.tileProfile, extraHeaders: extraHeaders)
            case nil:
                // Errors (a file changed while read) and a file not all in memory take the usual path below.
                if let read = try? file.readIfCached() {
                    tiles.countFileSend()
                    return .file(read, profile: image.tileProfile, extraHeaders: extraHeaders)
                }
            case false?:
                break
            }
        }
        let services = self.services
        let deliver = self.deliver
        let now = tiles.loadNow(key, of: image, opened: file) { result in
            deliver(Self.response(to: result, profile: image.tileProfile, extraHeaders: extraHeaders, route: route, services: services))
        }
        guard let now else { return .later }
        return Self.response(to: now, profile: image.tileProfile, extraHeaders: extraHeaders, route: route, services: services)
    }
}
