import Archive
import HTTPCore
import NIOCore
import ObjectSources
import ObjectStore

/// An SZI that lives in an object store (``ObjectSources/ObjectSZIArchive``): its index read once (one or two ranged
/// GETs), each tile then one ranged GET pinned with `If-Match` to the version indexed, its bytes passed through as
/// stored. Reads wait on the network, not on a disk, so misses are fetched (``fetch(_:of:onResult:)``): no file thread
/// waits while the store answers, and warming asks for a viewport's tiles at once. There is no local file to send
/// with `sendfile`.
///
/// A failing store is not a missing tile: its errors become ``SourceUnavailable`` (502, 503 or 504, with
/// `Retry-After`); an object replaced since it was indexed fails its reads (never a mix of two versions) until the
/// catalog indexes the new one.
package struct ObjectArchiveTiles: TileSource {
    /// The archive: its index and the object version read.
    package let archive: ObjectSZIArchive
    /// Tiles larger than this (bytes) are refused.
    package let maxTileBytes: Int
    /// The object's version in tiles' entity tags: the letters and digits of its ETag.
    private let version: String

    /// The source of the SZI `archive` opened, refusing tiles over `maxTileBytes` bytes.
    package init(archive: ObjectSZIArchive, maxTileBytes: Int) {
        self.archive = archive
        self.maxTileBytes = maxTileBytes
        self.version = String(archive.source.info.etag.filter { $0.isLetter || $0.isNumber || $0 == "-" }.prefix(40))
    }

    /// One ranged GET on the store's event loops, its answer checked and completed there: no task or thread hop
    /// between the store's answer and the tile.
    package func fetch(_ key: TileKey, of image: CatalogImage, onResult: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void) -> Bool {
        let (level, column, row) = (Int(key.level), Int(key.column), Int(key.row))
        let source = archive.source
        guard let record = archive.index.tileRecord(level: level, column: column, row: row) else {
            onResult(.failure(FileLoadError(kind: .notFound, message: "\(source.label) has no tile \(level)/\(column)_\(row)")))
            return true
        }
        guard record.size <= maxTileBytes else {
            onResult(
                .failure(FileLoadError(kind: .unreadable, message: "\(source.label): tile \(level)/\(column)_\(row) is over \(maxTileBytes) bytes")))
            return true
        }
        let range = Int(record.headerOffset)..<Int(record.offset) + record.size
        let (index, version) = (archive.index, self.version)
        let loop = source.reader.eventLoopGroup.any()
        source.reader.read(source.info.key, range: range, ifMatch: source.info.etag, on: loop).whenComplete { result in
            do throws(ArchiveError) {
                let buffer = try ObjectByteSource.checked(result, range: range, label: source.label)
                let start = try buffer.withUnsafeReadableBytes { (bytes) throws(ArchiveError) in
                    try index.checkTileRecord(level: level, column: column, row: row, record: bytes)
                }
                let etag = "\"\(String(record.size, radix: 16))-\(version).\(String(record.offset, radix: 16))\""
                onResult(.success(LoadedFile(body: buffer.readableBytesView.dropFirst(start), etag: etag)))
            } catch {
                onResult(.failure(Self.unavailable(error, source: source.label)))
            }
        }
        return true
    }

    /// Only fetched (``fetch(_:of:onResult:)``) but where a caller on a file thread needs the tile now (a tile made
    /// from others, an IIIF region): then it waits for the store. Never on an event loop: `pageCacheOnly` is nil.
    package func read(_ key: TileKey, of image: CatalogImage, pageCacheOnly: Bool, reserving: Bool, store: any TileReading) throws -> LoadedFile? {
        guard !pageCacheOnly else { return nil }
        return try fetchedNow(key, of: image)
    }

    package func open(_ key: TileKey, of image: CatalogImage, maxBytes: Int) -> OpenFile? { nil }

    /// One ranged GET of the image and its local header, pinned to the version indexed, waited for (a render thread's).
    package func keptAssociated(_ kind: String, of image: CatalogImage) throws -> [UInt8] {
        let source = archive.source
        guard let record = archive.index.associatedRecord(kind) else {
            throw FileLoadError(kind: .notFound, message: "no \(kind) image in \(source.label)")
        }
        let range = Int(record.headerOffset)..<Int(record.offset) + record.size
        let index = archive.index
        let read = source.reader.read(source.info.key, range: range, ifMatch: source.info.etag, on: source.reader.eventLoopGroup.any())
        do throws(ArchiveError) {
            let buffer = try ObjectByteSource.checked(Result { try read.wait() }, range: range, label: source.label)
            return try index.associatedBytes(kind, record: Array(buffer.readableBytesView))
        } catch {
            throw Self.unavailable(error, source: source.label)
        }
    }

    /// What a failed read means to a client: the store's failure as 502/503/504, a damaged archive as 500.
    static func unavailable(_ error: ArchiveError, source: String) -> any Error {
        guard let store = error.underlying as? ObjectStoreError else { return FileLoadError(kind: .unreadable, message: error.message) }
        return unavailable(store, message: error.message, source: source)
    }

    /// A store's failure as 502/503/504, `message` naming the object and what failed.
    static func unavailable(_ store: ObjectStoreError, message: String, source: String) -> SourceUnavailable {
        switch store.kind {
        case .timeout: SourceUnavailable(status: .gatewayTimeout, retryAfterSeconds: store.retryAfterSeconds, message: message, source: source)
        case .unavailable:
            SourceUnavailable(status: .serviceUnavailable, retryAfterSeconds: store.retryAfterSeconds ?? 1, message: message, source: source)
        // Replaced or gone since it was indexed: unavailable until the catalog indexes what is there now.
        case .changed, .notFound: SourceUnavailable(status: .serviceUnavailable, retryAfterSeconds: 1, message: message, source: source)
        default: SourceUnavailable(status: .badGateway, retryAfterSeconds: nil, message: message, source: source)
        }
    }
}
