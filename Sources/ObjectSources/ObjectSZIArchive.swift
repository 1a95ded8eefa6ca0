import Archive
import ObjectStore

/// An SZI that lives in an object store, opened: its index, and where its tiles are read from.
///
/// Opening costs one ranged GET when the central directory and the descriptor lie in the object's last 64 KiB (a
/// pyramid of up to about 800 tiles), two for larger ones (``Archive/SZIArchive/init(source:label:tailBytes:)``); a
/// tile costs one, its local header checked in the same read. Every read is pinned to the version opened: once the
/// object is replaced, reads fail (``Archive/ArchiveError/underlying`` is ``ObjectStoreError/Kind-swift.struct/changed``)
/// and the caller opens the new version.
public struct ObjectSZIArchive: Sendable {
    /// The archive's index, as a file's would be (its offsets derived, each tile's checked when read).
    public let index: SZIArchive
    /// The object and the version read.
    public let source: ObjectByteSource

    /// Opens the SZI `source` reads.
    ///
    /// - Parameter tailBytes: The first read's length (``Archive/SZIArchive/defaultTailBytes``).
    /// - Throws: ``Archive/ArchiveError``, one line naming the object and what is wrong.
    public init(source: ObjectByteSource, tailBytes: Int = SZIArchive.defaultTailBytes) async throws(ArchiveError) {
        self.source = source
        self.index = try await SZIArchive(source: source, label: source.label, tailBytes: tailBytes)
    }

    /// Opens the SZI `key` of `reader`, asking the store for its size and ETag first (one HEAD): for a key whose
    /// ``ObjectInfo`` is not at hand from a listing.
    public static func open(_ key: String, in reader: any ObjectReader, tailBytes: Int = SZIArchive.defaultTailBytes) async throws(ArchiveError)
        -> ObjectSZIArchive
    {
        let info: ObjectInfo
        do {
            info = try await reader.info(key)
        } catch {
            throw ArchiveError("\(reader.name)\(key): cannot open (\(error))", underlying: error)
        }
        return try await ObjectSZIArchive(source: ObjectByteSource(reader: reader, info: info), tailBytes: tailBytes)
    }

    /// Tile (`level`, `column`, `row`)'s bytes, with one ranged GET; nil when the archive lacks the tile.
    ///
    /// - Throws: ``Archive/ArchiveError`` when the read fails or the tile's local header disagrees with the index.
    public func tile(level: Int, column: Int, row: Int) async throws(ArchiveError) -> [UInt8]? {
        try await index.readTile(level: level, column: column, row: row, from: source)
    }
}
