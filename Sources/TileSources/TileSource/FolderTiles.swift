import HTTPCore
import Slicing

/// A Deep Zoom folder (what `tiler slice` writes): `{name}.dzi` beside `{name}_files/{level}/{col}_{row}.{ext}`, one
/// file per tile, sent as they are (from the cache, or with `sendfile` from the open file).
package struct FolderTiles: TileSource {
    /// The real path of the `{name}_files` folder (inside ROOT).
    package let directory: String
    /// The level folders, opened (and checked to lie inside ROOT) on first use through the server's shared cache.
    package let levels: LevelDirectories

    /// The path of tile `key`: `{directory}/{level}/{col}_{row}.{format}`.
    package func tilePath(_ key: TileKey, of image: CatalogImage) -> String? {
        path(of: key, format: image.descriptor.format)
    }

    private func path(of key: TileKey, format: String) -> String {
        "\(directory)/\(key.level)/\(key.column)_\(key.row).\(format)"
    }

    /// Reads the tile through its open level folder when there is one, else by path (checked with `realpath`).
    package func read(_ key: TileKey, of image: CatalogImage, pageCacheOnly: Bool, reserving: Bool, store: any TileReading) throws -> LoadedFile? {
        if let directory = levels.directory(level: Int(key.level)) {
            let read = try withExtendedLifetime(directory) { () throws(FileLoadError) in
                try FileLoader.loadTile(
                    column: key.column, row: key.row, format: image.descriptor.format.utf8, in: directory.descriptor, maxBytes: store.maxTileBytes,
                    pageCacheOnly: pageCacheOnly)
            }
            switch read {
            case .loaded(let file): return file
            case .notInMemory: return nil
            case .askByPath: break
            }
        }
        let path = path(of: key, format: image.descriptor.format)
        if pageCacheOnly {
            return try FileLoader.loadIfCached(path, inside: image.root, maxBytes: store.maxTileBytes)
        }
        return try FileLoader.load(path, inside: image.root, maxBytes: store.maxTileBytes)
    }

    package func open(_ key: TileKey, of image: CatalogImage, maxBytes: Int) -> OpenFile? {
        guard let directory = levels.directory(level: Int(key.level)) else { return nil }
        // The folder stays open (not closed by an eviction) until the `openat` is done.
        return withExtendedLifetime(directory) {
            OpenFile(column: key.column, row: key.row, format: image.descriptor.format.utf8, in: directory.descriptor, maxBytes: maxBytes)
        }
    }

    package var isIntact: Bool { FileSignature.isDirectory(directory) }

    package func keptAssociated(_ kind: String, of image: CatalogImage) throws -> [UInt8] {
        Array(try FileLoader.load(directory + "/associated/\(kind).jpg", inside: image.root, maxBytes: AssociatedImage.maxBytes).body)
    }
}
