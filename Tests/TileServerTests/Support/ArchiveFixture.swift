import Archive
import Foundation
import TileGeometry

/// SZIs in a ``PyramidFixture``'s ROOT: the same tiles ``PyramidFixture/addPyramid(_:width:height:tileSize:format:tileBytes:in:)``
/// writes as files, as entries of one stored ZIP written by ``ZIPWriter``.
extension PyramidFixture {
    /// Writes `ROOT/{name}.szi` holding `{name}/{name}.dzi` and every tile of `tileBytes` bytes (or the `entries` given
    /// instead, for damaged archives); returns its descriptor.
    @discardableResult
    func addArchive(
        _ name: String, width: Int, height: Int, tileBytes: Int = 100, extra: [(name: String, bytes: [UInt8])] = [], fileName: String? = nil
    ) throws -> DZIDescriptor {
        let descriptor = DZIDescriptor(width: width, height: height, tileSize: 256, overlap: 0, format: "jpg")
        var entries = descriptor.pyramid.tiles.map { tile in
            (
                name: "\(name)/\(name)_files/\(tile.level)/\(tile.column)_\(tile.row).jpg",
                bytes: Self.tileBytes(level: tile.level, column: tile.column, row: tile.row, count: tileBytes)
            )
        }
        entries.append(("\(name)/\(name).dzi", Array(descriptor.xml.utf8)))
        try writeArchive(entries + extra, to: root + "/" + (fileName ?? name + ".szi"))
        return descriptor
    }

    /// Writes `entries` as a stored ZIP at `path` (with ZIP64 records throughout when `zip64`).
    func writeArchive(_ entries: [(name: String, bytes: [UInt8])], to path: String, zip64: Bool = false) throws {
        let writer = try ZIPWriter(path: path, zip64Threshold: zip64 ? 0 : UInt64(UInt32.max))
        for entry in entries { try entry.bytes.withUnsafeBytes { try writer.append(name: entry.name, bytes: $0) } }
        _ = try writer.finish()
    }
}
