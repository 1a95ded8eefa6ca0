import HTTPCore

extension StoredTiles: TileSource {
    /// With `pageCacheOnly`, only a passed-through tile whose bytes are in the page cache (making a tile is a file
    /// thread's work); else the tile passed through or made within the render budget.
    package func read(_ key: TileKey, of image: CatalogImage, pageCacheOnly: Bool, reserving: Bool, store: any TileReading) throws -> LoadedFile? {
        guard !pageCacheOnly else { return try tileIfCheap(key.address, of: image) }
        return try store.makeStored(key, of: image, self, reserving: reserving)
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
        guard let tiff = pyramid as? StoredPyramidFile else { throw FileLoadError(kind: .notFound, message: "no kept \(kind) image") }
        return try tiff.associatedJPEG(kind)
    }
}
