import Archive
import ImageCodecs
import NIOCore
import ObjectStore

/// A pyramidal TIFF (BigTIFF, COG layout, OME-TIFF, Aperio SVS) that lives in an object store, opened: its levels and
/// tile index read once, each tile then one ranged GET pinned with `If-Match` to the version opened.
///
/// Opening reads the object's first 64 KiB and runs libtiff over what was fetched
/// (``ImageCodecs/TIFFPyramid/init(source:label:)``); when it needs bytes that were not (a directory, a tile table, a
/// profile lying further on), they are fetched — with three times as many after them (at most 16 MiB more), at least
/// 64 KiB — and it runs again. So a COG layout (every directory and table first) opens with one GET, two when its
/// tile tables pass the first 64 KiB; a layout with each directory after its level's tiles (`vips tiffsave
/// --pyramid`) with about one GET a level (4 for 5 levels). The directories read stay in memory (the
/// decoding handles read them again); libtiff never reads a tile: a tile's stored bytes are one ranged GET of the
/// place its index gives, checked, passed through (JPEG) or decoded as from a file.
public struct ObjectTIFFPyramid: Sendable {
    /// The first read's length, in bytes.
    public static let defaultHeadBytes = 1 << 16
    /// The most GETs an open makes: a hostile chain of scattered directories is refused, not followed for ever.
    public static let maxOpenReads = 64
    /// The most bytes an open fetches (tile tables of 16 Mi tiles a level are 128–256 MiB).
    public static let maxOpenBytes = 512 << 20

    /// The pyramid: its levels, facts and tile index.
    public let pyramid: TIFFPyramid
    /// The object and the version read.
    public let source: ObjectByteSource
    /// How many ranged GETs the open took.
    public let openReads: Int
    /// The bytes of the header and directories kept in memory, beside the tile index.
    public let heldBytes: Int

    /// Opens the TIFF `source` reads, with as few ranged GETs as its layout allows.
    ///
    /// - Parameter headBytes: The first read's length, in bytes (all of a smaller object).
    /// - Throws: ``Archive/ArchiveError``, one line naming the object: a read's failure (its ``Archive/ArchiveError/underlying``
    ///   the ``ObjectStore/ObjectStoreError``), or the TIFF's own fault (its underlying the
    ///   ``ImageCodecs/TIFFPyramidError``: not a pyramid, unsupported, damaged — directories past the end, a truncated
    ///   header —, or more than ``maxOpenReads`` reads or ``maxOpenBytes`` bytes to read its directories).
    /// - Complexity: one libtiff open per GET, each O(directories + tiles).
    public init(source: ObjectByteSource, headBytes: Int = Self.defaultHeadBytes) async throws(ArchiveError) {
        self.source = source
        let size = source.info.size
        let fetched = FetchedTIFFBytes(size: size)
        var reads = 0
        var fetchedBytes = 0
        if size > 0 {
            let count = min(size, max(16, headBytes))
            fetched.add(try await source.read(at: 0, count: count), at: 0)
            (reads, fetchedBytes) = (1, count)
        }
        while true {
            fetched.beginAttempt()
            let opened: Result<TIFFPyramid, TIFFPyramidError>
            do throws(TIFFPyramidError) {
                opened = .success(try TIFFPyramid(source: fetched, label: source.label))
            } catch {
                opened = .failure(error)
            }
            // A read not served means the outcome, success or failure, was decided without bytes the TIFF has.
            if let missing = fetched.takeMissing() {
                let range = fetched.rangeToFetch(for: missing, minimum: Self.defaultHeadBytes)
                guard reads < Self.maxOpenReads, fetchedBytes + range.count <= Self.maxOpenBytes else {
                    let error = TIFFPyramidError(
                        kind: .damaged, path: source.label,
                        reason: "its directories take more than \(Self.maxOpenReads) reads or \(Self.maxOpenBytes >> 20) MiB to read")
                    throw ArchiveError(error.description, underlying: error)
                }
                fetched.add(try await source.read(at: UInt64(range.lowerBound), count: range.count), at: range.lowerBound)
                reads += 1
                fetchedBytes += range.count
                continue
            }
            switch opened {
            case .success(let pyramid):
                fetched.keepTouched()
                self.pyramid = pyramid
                self.openReads = reads
                self.heldBytes = fetched.heldBytes
                return
            case .failure(let error):
                throw ArchiveError(error.description, underlying: error)
            }
        }
    }

    /// Stored tile (`column`, `row`) of level `level`'s bytes as stored: one ranged GET of the place the index gives,
    /// pinned to the version opened, completed on `loop`.
    ///
    /// Fails with ``ImageCodecs/TIFFPyramidError`` for a bad index entry (past the object's end, absurd) or a tile over
    /// `maxBytes`, with ``Archive/ArchiveError`` when the read fails (``ObjectByteSource/checked(_:range:label:)``).
    public func storedTile(level: Int, column: Int, row: Int, maxBytes: Int, on loop: any EventLoop) -> EventLoopFuture<[UInt8]> {
        let range: Range<Int>
        do throws(TIFFPyramidError) {
            range = try pyramid.storedTileRange(level: level, column: column, row: row)
        } catch {
            return loop.makeFailedFuture(error)
        }
        guard range.count <= maxBytes else {
            let reason = "tile (\(column), \(row)) of level \(level) has \(range.count) stored bytes, over \(maxBytes)"
            return loop.makeFailedFuture(TIFFPyramidError(kind: .unsupported, path: source.label, reason: reason))
        }
        return read(range, on: loop)
    }

    /// Stored tile (`column`, `row`) of a level with ``ImageCodecs/TIFFPyramid/Level/jpegPassThrough`` as the JPEG file
    /// a local file's would be (``ImageCodecs/TIFFPyramid/jpegTile(level:column:row:stored:)``): one ranged GET,
    /// checked, the level's prefix before it; completed on `loop`. Fails as ``storedTile(level:column:row:maxBytes:on:)``,
    /// or with ``ImageCodecs/TIFFPyramidError`` for a malformed stream.
    public func jpegTile(level: Int, column: Int, row: Int, maxBytes: Int, on loop: any EventLoop) -> EventLoopFuture<[UInt8]> {
        let pyramid = self.pyramid
        return storedTile(level: level, column: column, row: row, maxBytes: maxBytes, on: loop).flatMapThrowing { stored in
            try pyramid.jpegTile(level: level, column: column, row: row, stored: stored)
        }
    }

    /// Associated image `kind` (``ImageCodecs/TIFFPyramid/associatedImages``) as a JPEG file: one ranged GET of its
    /// strip, completed on `loop`.
    public func associatedJPEG(_ kind: String, on loop: any EventLoop) -> EventLoopFuture<[UInt8]> {
        let pyramid = self.pyramid
        let range: Range<Int>
        do throws(TIFFPyramidError) {
            range = try pyramid.associatedStripRange(kind)
        } catch {
            return loop.makeFailedFuture(error)
        }
        return read(range, on: loop).flatMapThrowing { strip in try pyramid.associatedJPEG(kind, strip: strip) }
    }

    /// The bytes of `range` of the version opened: one ranged GET with `If-Match`, checked
    /// (``ObjectByteSource/checked(_:range:label:)``).
    private func read(_ range: Range<Int>, on loop: any EventLoop) -> EventLoopFuture<[UInt8]> {
        guard !range.isEmpty else { return loop.makeSucceededFuture([]) }
        let (label, promise) = (source.label, loop.makePromise(of: [UInt8].self))
        source.reader.read(source.info.key, range: range, ifMatch: source.info.etag, on: loop).whenComplete { result in
            do throws(ArchiveError) {
                promise.succeed(Array(try ObjectByteSource.checked(result, range: range, label: label).readableBytesView))
            } catch {
                promise.fail(error)
            }
        }
        return promise.futureResult
    }
}
