import Archive
import NIOCore
import ObjectStore

/// One object of a store as an ``Archive/AsyncArchiveByteSource``: each read one ranged GET, pinned with `If-Match` to
/// the ETag of the version ``info`` describes, so that an object replaced after it was opened fails the next read
/// (412, ``ObjectStoreError/Kind-swift.struct/changed``) instead of mixing bytes of two versions.
///
/// Asynchronous, not a blocking ``Archive/ArchiveByteSource``: a blocked thread per read, and a deadlock if it were an
/// event loop's, would be the price; the Archive parser instead runs over the bytes fetched
/// (``Archive/SZIArchive/init(source:label:tailBytes:)``), and tiles are read with one awaited GET each.
public struct ObjectByteSource: AsyncArchiveByteSource {
    /// Where the object is read from.
    public let reader: any ObjectReader
    /// The object's key, size and ETag, as a HEAD or a listing gave them: the version every read asks for.
    public let info: ObjectInfo
    /// The object in errors: the store's root and the key (`s3://bucket/prefix/key`).
    public let label: String

    /// The object `info` describes (from `reader`'s `info(_:)` or `list(prefix:)`).
    ///
    /// - Throws: ``Archive/ArchiveError`` when the store gave no ETag: its reads could not be pinned to one version.
    public init(reader: any ObjectReader, info: ObjectInfo) throws(ArchiveError) {
        self.reader = reader
        self.info = info
        self.label = reader.name + info.key
        guard !info.etag.isEmpty else {
            throw ArchiveError("\(label): the store gave no ETag, so reads of it cannot be pinned to one version")
        }
    }

    /// The object's size in bytes.
    public var size: UInt64 { UInt64(info.size) }

    /// The `count` bytes at `offset` of the version ``info`` describes: one ranged GET with `If-Match`.
    ///
    /// - Throws: ``Archive/ArchiveError`` naming the object, its ``Archive/ArchiveError/underlying`` the
    ///   ``ObjectStoreError`` (``ObjectStoreError/Kind-swift.struct/changed`` for a replaced object); or, when the object
    ///   is shorter than the range, `the file ends inside a record at byte N`, as for a file.
    /// - Precondition: `count` ≥ 1.
    public func read(at offset: UInt64, count: Int) async throws(ArchiveError) -> [UInt8] {
        precondition(count >= 1, "a ranged read asks for at least one byte")
        let range = Int(offset)..<Int(offset) + count
        let result: Result<ByteBuffer, any Error>
        do {
            result = .success(try await reader.read(info.key, range: range, ifMatch: info.etag))
        } catch {
            result = .failure(error)
        }
        return Array(try Self.checked(result, range: range, label: label).readableBytesView)
    }

    /// The bytes a ranged read of `range` of the object `label` names gave: all of them, or why not — a replaced
    /// object (``Archive/ArchiveError/underlying`` the ``ObjectStoreError``), a failed read, or an object shorter than
    /// the range (`the file ends inside a record at byte N`, as for a file). For readers that chain on the future.
    public static func checked(_ result: Result<ByteBuffer, any Error>, range: Range<Int>, label: String) throws(ArchiveError) -> ByteBuffer {
        switch result {
        case .success(let buffer) where buffer.readableBytes == range.count:
            return buffer
        case .success(let buffer):
            throw ArchiveError("\(label): the file ends inside a record at byte \(range.lowerBound + buffer.readableBytes)")
        case .failure(let error as ObjectStoreError) where error.kind == .changed:
            throw ArchiveError("\(label): the object was replaced after it was opened (\(error))", underlying: error)
        case .failure(let error):
            throw ArchiveError("\(label): cannot read bytes \(range.lowerBound)-\(range.upperBound - 1) (\(error))", underlying: error)
        }
    }
}
