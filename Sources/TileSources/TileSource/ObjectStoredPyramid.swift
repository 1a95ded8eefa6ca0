import Archive
import HTTPCore
import ImageCodecs
import NIOCore
import ObjectSources

/// A pyramidal TIFF that lives in an object store (``ObjectSources/ObjectTIFFPyramid``) as ``StoredTiles`` read it: its
/// levels, colour profile and facts as the catalog read them from its directories, each stored tile then one ranged GET
/// pinned with `If-Match` to the version opened. A passed-through tile is fetched (``fetchJPEGTile(level:column:row:onResult:)``):
/// no thread waits while the store answers. A tile made from stored pixels is made on a file thread, which waits for
/// the GETs of the stored tiles it covers, sent all at once (``region(level:x0:y0:x1:y1:)``).
///
/// What OpenSlide alone reads of an Aperio SVS (its label, macro and thumbnail, its properties) is not read from a
/// store; its objective and microns per pixel come from its ImageDescription, as for a file. A failing store is not a
/// damaged image: its errors are ``SourceUnavailable`` (502, 503 or 504); an object replaced since it was opened
/// fails its reads (never a mix of two versions) until the catalog opens the new one.
package struct ObjectStoredPyramid: StoredPyramid {
    /// The TIFF opened: its index, and the object and version it reads.
    package let tiff: ObjectTIFFPyramid
    package let storedLevels: [StoredLevel]
    package let description: TIFFDescription
    /// Stored tiles larger than this (bytes) are refused.
    package let maxTileBytes: Int

    /// The TIFF `tiff`, refusing stored tiles over `maxTileBytes` bytes.
    package init(tiff: ObjectTIFFPyramid, maxTileBytes: Int) {
        self.tiff = tiff
        self.storedLevels = tiff.pyramid.storedLevels
        self.description = TIFFDescription(tiff.pyramid, extras: nil)
        self.maxTileBytes = maxTileBytes
    }

    package var colourProfile: [UInt8]? { tiff.pyramid.iccProfile }

    package var facts: ImageFacts { description.facts }

    /// The object, in errors and the log.
    private var label: String { tiff.source.label }

    /// A loop of the store's connections, for a read.
    private var loop: any EventLoop { tiff.source.reader.eventLoopGroup.any() }

    package func fetchJPEGTile(level: Int, column: Int, row: Int, onResult: @escaping @Sendable (Result<[UInt8], any Error>) -> Void) -> Bool {
        let label = self.label
        tiff.jpegTile(level: level, column: column, row: row, maxBytes: maxTileBytes, on: loop).whenComplete { result in
            onResult(result.mapError { Self.clientError($0, label: label) })
        }
        return true
    }

    /// One ranged GET, waited for: on a file thread only (a tile made from this one). Never on an event loop.
    package func jpegTile(level: Int, column: Int, row: Int) throws -> [UInt8] {
        try waited(tiff.jpegTile(level: level, column: column, row: row, maxBytes: maxTileBytes, on: loop))
    }

    /// Nil: no stored tile is in memory without a read.
    package func jpegTileIfCached(level: Int, column: Int, row: Int) throws -> [UInt8]? { nil }

    /// One ranged GET, waited for, then decoded: on a file thread only.
    package func decodeTile(level: Int, column: Int, row: Int, into pixels: UnsafeMutableRawBufferPointer) throws {
        let stored = try waited(tiff.storedTile(level: level, column: column, row: row, maxBytes: maxTileBytes, on: loop))
        try decode(level: level, column: column, row: row, stored: stored, into: pixels)
    }

    /// The stored tiles under the region read with one GET each, all sent at once and waited for together, then
    /// decoded: a made tile costs one round trip, however many stored tiles it covers. On a file thread only.
    ///
    /// - Complexity: one GET per stored tile covered (at most 64 for a made tile, ``StoredTiles/maxSourcePixels``).
    package func region(level: Int, x0: Int, y0: Int, x1: Int, y1: Int) throws -> PixelBuffer {
        let tiles = storedTiles(level: level, x0: x0, y0: y0, x1: x1, y1: y1)
        let reads = tiles.map { tiff.storedTile(level: level, column: $0.column, row: $0.row, maxBytes: maxTileBytes, on: loop) }
        var stored: [[Int]: [UInt8]] = [:]
        for (tile, read) in zip(tiles, reads) { stored[[tile.column, tile.row]] = try waited(read) }
        return try region(level: level, x0: x0, y0: y0, x1: x1, y1: y1) { column, row, pixels in
            try decode(level: level, column: column, row: row, stored: stored[[column, row]] ?? [], into: pixels)
        }
    }

    /// A kept associated image (a sliced slide's label, macro, thumbnail): one ranged GET of its strip, waited for.
    package func keptAssociatedJPEG(_ kind: String) throws -> [UInt8] {
        guard description.keptAssociated.contains(kind) else { throw FileLoadError(kind: .notFound, message: "no kept \(kind) image") }
        return try waited(tiff.associatedJPEG(kind, on: loop))
    }

    /// Decodes the `stored` bytes of a tile, a damaged one an error for that tile (500).
    private func decode(level: Int, column: Int, row: Int, stored: [UInt8], into pixels: UnsafeMutableRawBufferPointer) throws {
        do throws(TIFFPyramidError) {
            try tiff.pyramid.decodeTile(level: level, column: column, row: row, stored: stored, into: pixels)
        } catch {
            throw Self.clientError(error, label: label)
        }
    }

    /// `read`'s value, waited for on this thread; its failure as ``clientError(_:label:)``.
    private func waited(_ read: EventLoopFuture<[UInt8]>) throws -> [UInt8] {
        do {
            return try read.wait()
        } catch {
            throw Self.clientError(error, label: label)
        }
    }

    /// What a failed read means to a client: the store's failure (or a replaced object) as ``SourceUnavailable``, the
    /// TIFF's own fault (an index entry past the object's end, a damaged tile) as a file that cannot be read (500).
    static func clientError(_ error: any Error, label: String) -> any Error {
        switch error {
        case let error as ArchiveError: ObjectArchiveTiles.unavailable(error, source: label)
        case let error as TIFFPyramidError: FileLoadError(kind: .unreadable, message: error.description)
        default: error
        }
    }
}
