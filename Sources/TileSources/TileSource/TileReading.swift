import HTTPCore

/// What a source asks of the store that reads through it (``TileStore``): its size limit, and for a tile made from
/// others (a stored pyramid's missing level, halved from the finer one) the reads and the making that go through the
/// cache and the render budget. A protocol so that the sources sit below the store.
package protocol TileReading: Sendable {
    /// The largest tile, in bytes, that is read.
    var maxTileBytes: Int { get }
    /// Tile `key` of `image` made by `stored`, its working memory reserved in the render budget when `reserving`.
    /// Blocking.
    func makeStored(_ key: TileKey, of image: CatalogImage, _ stored: StoredTiles, reserving: Bool) throws -> LoadedFile
    /// The tiles `keys` of `image`, in order: each from the cache, or read (or made) on the calling thread and cached.
    /// Blocking.
    func filesMadeHere(_ keys: [TileKey], of image: CatalogImage) throws -> [LoadedFile]
}
