import HTTPCore

extension StoredTiles: TileSource {
    /// With `pageCacheOnly`, only a passed-through tile whose bytes are in the page cache (making a tile is a file
    /// thread's work); else the tile passed through or made within the render budget.
    package func read(_ key: TileKey, of image: CatalogImage, pageCacheOnly: Bool, reserving: Bool, store: any TileReading) throws -> LoadedFile? {
        guard !pageCacheOnly else { return try tileIfCheap(key.address, of: image) }
        return try store.makeStored(key, of: image, self, reserving: reserving)
    }

    /// A passed-through tile of a pyramid read over the network (a TIFF in a store) is fetched: one ranged GET, no
    /// thread waiting. Every other tile is read (made) on a file thread.
    package func fetch(_ key: TileKey, of image: CatalogImage, onResult: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void) -> Bool {
        guard let level = passThroughLevel(key.address, of: image) else { return false }
        let etag = etag(of: image, key.address, passedThrough: true)
        return pyramid.fetchJPEGTile(level: level, column: Int(key.column), row: Int(key.row)) { result in
            onResult(result.map { LoadedFile(bytes: $0, etag: etag) })
        }
    }

    package func open(_ key: TileKey, of image: CatalogImage, maxBytes: Int) -> OpenFile? {
        open(key.address, of: image, maxBytes: maxBytes)
    }

    package var makesTiles: Bool { true }

    /// A pyramid stored in one file has every tile: one missing is an error.
    package var mayLackTiles: Bool { false }

    package var isIntact: Bool { (pyramid as? SlidePyramid)?.companions.areCurrent ?? true }

    package var facts: ImageFacts? { pyramid.facts }

    package var slideExtras: SlidePyramid? { pyramid.slideExtras }

    package func keptAssociated(_ kind: String, of image: CatalogImage) throws -> [UInt8] {
        try pyramid.keptAssociatedJPEG(kind)
    }
}
