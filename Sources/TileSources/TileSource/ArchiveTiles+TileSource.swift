import HTTPCore

extension ArchiveTiles: TileSource {
    package func read(_ key: TileKey, of image: CatalogImage, pageCacheOnly: Bool, reserving: Bool, store: any TileReading) throws -> LoadedFile? {
        try read(key.address, maxBytes: store.maxTileBytes, pageCacheOnly: pageCacheOnly)
    }

    package func open(_ key: TileKey, of image: CatalogImage, maxBytes: Int) -> OpenFile? {
        open(key.address, maxBytes: maxBytes)
    }

    package func keptAssociated(_ kind: String, of image: CatalogImage) throws -> [UInt8] {
        Array(try readAssociated(kind).body)
    }
}
