import HTTPCore
import NIOCore
import ObjectStore

/// A Deep Zoom folder that lives in an object store: `NAME.dzi` beside `NAME_files/LEVEL/COLUMN_ROW.FORMAT`, one object
/// per tile, each tile one GET (its bytes passed through as stored). Reads wait on the network, so misses are fetched
/// (``fetch(_:of:onResult:)``) without holding a thread, as for ``ObjectArchiveTiles``. A tile the folder lacks is
/// absent (404), as `vips dzsave --skip-blanks` leaves some out; a failing store is ``SourceUnavailable``.
///
/// Tiles are separate objects, replaced one by one, so a tile's entity tag is made from its bytes (FNV-1a, 64 bits):
/// a tile replaced in place is never answered 304 for its old bytes.
package struct ObjectFolderTiles: TileSource {
    /// Where the objects are read from.
    package let reader: any ObjectReader
    /// `NAME_files/`, relative to the reader's root.
    package let folder: String
    /// The tiles' extension (the descriptor's format).
    package let format: String
    /// Tiles larger than this (bytes) are refused.
    package let maxTileBytes: Int

    package init(reader: any ObjectReader, folder: String, format: String, maxTileBytes: Int) {
        self.reader = reader
        self.folder = folder
        self.format = format
        self.maxTileBytes = maxTileBytes
    }

    /// The key of tile `key`.
    func objectKey(_ key: TileKey) -> String { "\(folder)\(key.level)/\(key.column)_\(key.row).\(format)" }

    /// One GET of the tile's object (a range from its first byte to the most a tile may have, so that one larger is
    /// refused without being read whole).
    package func fetch(_ key: TileKey, of image: CatalogImage, onResult: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void) -> Bool {
        let (object, label, limit, folder) = (objectKey(key), reader.name + objectKey(key), maxTileBytes, reader.name + folder)
        reader.read(object, range: 0..<limit + 1, ifMatch: nil, on: reader.eventLoopGroup.any()).whenComplete { result in
            onResult(Self.tile(result, label: label, folder: folder, limit: limit))
        }
        return true
    }

    /// Only fetched, but where a caller on a file thread needs the tile now (an IIIF region): then it waits.
    package func read(_ key: TileKey, of image: CatalogImage, pageCacheOnly: Bool, reserving: Bool, store: any TileReading) throws -> LoadedFile? {
        guard !pageCacheOnly else { return nil }
        return try fetchedNow(key, of: image)
    }

    package func open(_ key: TileKey, of image: CatalogImage, maxBytes: Int) -> OpenFile? { nil }

    package func keptAssociated(_ kind: String, of image: CatalogImage) throws -> [UInt8] {
        throw FileLoadError(kind: .notFound, message: "no \(kind) image in \(reader.name)\(folder)")
    }

    /// The tile a read gave, or what its failure means to a client.
    static func tile(_ result: Result<ByteBuffer, any Error>, label: String, folder: String, limit: Int) -> Result<LoadedFile, any Error> {
        switch result {
        case .success(let buffer) where buffer.readableBytes > limit:
            return .failure(FileLoadError(kind: .unreadable, message: "\(label) is over \(limit) bytes"))
        case .success(let buffer):
            let etag = "\"\(String(buffer.readableBytes, radix: 16))-\(String(FNV1a.hash(buffer.readableBytesView), radix: 16))\""
            return .success(LoadedFile(bytes: Array(buffer.readableBytesView), etag: etag))
        case .failure(let error as ObjectStoreError) where error.kind == .notFound:
            return .failure(FileLoadError(kind: .notFound, message: "\(label): no such object"))
        case .failure(let error as ObjectStoreError):
            return .failure(ObjectArchiveTiles.unavailable(error, message: "\(label): \(error)", source: folder))
        case .failure(let error):
            return .failure(FileLoadError(kind: .unreadable, message: "\(label): \(error)"))
        }
    }
}
