import CTIFF
import Glibc

extension TIFFPyramid {
    /// A passed-through JPEG tile as it can be sent without reading it into memory: ``prefix`` (the same for every tile
    /// of the level), then ``length`` bytes of the file at ``offset`` — together the bytes of
    /// ``jpegTile(level:column:row:)``.
    public struct JPEGTileRegion: Sendable, Equatable {
        /// SOI, the Adobe APP14 marker when the data is RGB, the level's JPEGTables without SOI and EOI.
        public let prefix: [UInt8]
        /// Where the tile's bytes after its SOI start in the file, in bytes.
        public let offset: Int
        /// How many bytes of the file follow the prefix (to the tile's end, padding included).
        public let length: Int
    }

    /// Where stored tile (`column`, `row`) of level `level` lies as a standalone JPEG (see ``JPEGTileRegion``), for
    /// sending it with `sendfile`. Checks the tile as ``jpegTile(level:column:row:)`` does — its markers up to the scan and
    /// its EOI — reading its first 2 KiB and last 64 bytes (the whole tile when that is not enough), once: a tile found
    /// sound is not read again while this value lives. A caller sending from the file must make sure it is still the
    /// file this opened (``identity``).
    ///
    /// - Complexity: Two `pread`s of at most 2 KiB the first time, none after. - Throws: ``TIFFPyramidError`` as
    ///   ``jpegTile(level:column:row:)``.
    public func jpegTileRegion(level: Int, column: Int, row: Int) throws(TIFFPyramidError) -> JPEGTileRegion {
        guard levels.indices.contains(level), (0..<levels[level].columns).contains(column), (0..<levels[level].rows).contains(row) else {
            throw TIFFPyramidError(kind: .invalidArgument, path: path, reason: "no tile (\(column), \(row)) in level \(level)")
        }
        var message = [CChar](repeating: 0, count: 400)
        var offset: UInt64 = 0
        var length: UInt64 = 0
        let status = tiler_tiff_pyramid_jpeg_region(pyramid, Int32(level), Int32(column), Int32(row), &offset, &length, &message, message.count)
        guard status == TILER_TIFF_OK else {
            throw TIFFPyramidError(kind: TIFFPyramidError.Kind(status: status), path: path, reason: Self.string(message))
        }
        return JPEGTileRegion(prefix: jpegPrefixes[level], offset: Int(offset), length: Int(length))
    }

    /// The bytes before every passed-through tile of `level` of `pyramid` (see ``JPEGTileRegion/prefix``).
    static func jpegPrefix(_ pyramid: OpaquePointer, level: Int) -> [UInt8] {
        var capacity = 0
        _ = tiler_tiff_pyramid_jpeg_prefix(pyramid, Int32(level), nil, 0, &capacity)
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
            var length = 0
            count = tiler_tiff_pyramid_jpeg_prefix(pyramid, Int32(level), buffer.baseAddress, capacity, &length) == TILER_TIFF_OK ? length : 0
        }
    }

    /// A new descriptor of the open file (close-on-exec), for its caller to own and close; -1 when none is left.
    public func duplicateDescriptor() -> Int32 {
        fcntl(tiler_tiff_pyramid_descriptor(pyramid), F_DUPFD_CLOEXEC, 0)
    }
}
