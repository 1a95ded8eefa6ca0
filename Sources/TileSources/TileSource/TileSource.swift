import HTTPCore
import Slicing

/// Where one catalog image's tiles come from: the one protocol every kind of source conforms to, in a file of its own —
/// ``FolderTiles`` (a Deep Zoom folder, one file per tile), ``ArchiveTiles`` (an SZI: a Deep Zoom pyramid in one
/// stored ZIP), ``StoredTiles`` (a pyramid stored in one file and read in place: a pyramidal TIFF, a whole-slide
/// image, a TIFF in a store), ``ObjectArchiveTiles`` and ``ObjectFolderTiles`` (an SZI, a Deep Zoom folder in a store). Every read of a tile goes through ``TileStore`` (the cache, its admission, single-flight reads), which asks
/// the image's source for the bytes of a miss; nothing outside the sources asks which kind an image's is.
///
/// A new kind of source is a new conformance and its place in the catalog's loading.
package protocol TileSource: Sendable {
    /// Tile `key` of `image`, read (or made) now on the calling thread.
    ///
    /// - Parameters:
    ///   - pageCacheOnly: Only what can be had without waiting for the disk or working (for an event loop): nil when
    ///     it cannot.
    ///   - reserving: For a made tile, whether its working memory is reserved in `store`'s render budget (false: it is
    ///     made as part of another's making, whose reservation covers it).
    ///   - store: The store reading it: its limits, its render budget, and the tiles a made tile is made from.
    /// - Returns: The tile; nil only with `pageCacheOnly`.
    /// - Throws: ``FileLoadError`` (`notFound` for a tile the source lacks), a render's errors for a made tile.
    func read(_ key: TileKey, of image: CatalogImage, pageCacheOnly: Bool, reserving: Bool, store: any TileReading) throws -> LoadedFile?

    /// For a source whose reads wait on a network rather than a disk (an object store): starts reading tile `key` of
    /// `image` and calls `onResult` once, on any thread, holding no thread while it waits; returns `true`. Returns
    /// `false` for a source read on the file threads (every local one), and for a tile that is made rather than read
    /// (a TIFF in a store's, from the stored tiles it covers), whose misses then go to
    /// ``read(_:of:pageCacheOnly:reserving:store:)`` there.
    func fetch(_ key: TileKey, of image: CatalogImage, onResult: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void) -> Bool

    /// Tile `key` of `image` opened to be sent straight from its file (`sendfile`), or nil when it cannot be (a tile
    /// that is made, over `maxBytes`, a level folder not open): the caller then reads it.
    func open(_ key: TileKey, of image: CatalogImage, maxBytes: Int) -> OpenFile?

    /// Whether tiles are made from the source's pixels rather than read as they are: a made tile is work that the
    /// going of every client waiting for it abandons, and that waits for room in the render budget.
    var makesTiles: Bool { get }

    /// Whether the pyramid may lack tiles it never had (`vips dzsave --skip-blanks` leaves out blank ones): such a
    /// tile is then absent, not an error.
    var mayLackTiles: Bool { get }

    /// Whether what the source reads from is still as the catalog found it (a tiles folder still there, a slide's
    /// other files unchanged). Blocking: a `stat` or a few.
    var isIntact: Bool { get }

    /// What the source says of the image beyond its pixels (a stored pyramid's own facts), or nil: then what the
    /// pyramid records of its source (``CatalogImage/recorded``) is all there is.
    var facts: ImageFacts? { get }

    /// The slide whose properties and associated images the image has, read through OpenSlide (nil for most).
    var slideExtras: SlidePyramid? { get }

    /// The path of the file that holds tile `key` alone, where there is one (a folder pyramid's tile file), to name in
    /// errors and to read again; nil for the others.
    func tilePath(_ key: TileKey, of image: CatalogImage) -> String?

    /// The JPEG of associated image `kind` that a sliced slide's pyramid keeps (its label, macro, thumbnail).
    /// Blocking: call it on a render thread.
    ///
    /// - Throws: ``FileLoadError`` `notFound` when it keeps none of that kind.
    func keptAssociated(_ kind: String, of image: CatalogImage) throws -> [UInt8]
}

extension TileSource {
    package func fetch(_ key: TileKey, of image: CatalogImage, onResult: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void) -> Bool {
        false
    }
    package var makesTiles: Bool { false }
    package var mayLackTiles: Bool { true }
    package var isIntact: Bool { true }
    package var facts: ImageFacts? { nil }
    package var slideExtras: SlidePyramid? { nil }
    package func tilePath(_ key: TileKey, of image: CatalogImage) -> String? { nil }
}
