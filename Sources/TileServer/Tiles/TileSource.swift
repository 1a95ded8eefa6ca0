/// Where one catalog image's tiles come from. Every read of a tile goes through ``TileStore`` (the cache, its
/// admission, single-flight reads), which asks the image's source for the bytes of a miss.
enum TileSource: Sendable {
    /// A Deep Zoom folder (what `tiler slice` writes): `{name}.dzi` beside `{name}_files/{level}/{col}_{row}.{ext}`,
    /// one file per tile, sent as they are (from the cache, or with `sendfile` from the open file).
    case folder(FolderTiles)
    /// A pyramid stored in one file and read in place (a pyramidal TIFF): each Deep Zoom tile is a stored tile passed
    /// through untouched where one matches exactly, else made from the stored tiles it covers.
    case stored(StoredTiles)
    /// A Deep Zoom pyramid in one stored ZIP (an SZI): each tile's bytes sent from the archive as they are (from the
    /// cache, or with `sendfile` from their offset in the open archive).
    case archive(ArchiveTiles)
}

/// A folder pyramid's tiles.
struct FolderTiles: Sendable {
    /// The real path of the `{name}_files` folder (inside ROOT).
    let directory: String
    /// The level folders, opened (and checked to lie inside ROOT) on first use through the server's shared cache.
    let levels: LevelDirectories
}
