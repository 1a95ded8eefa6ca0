import Foundation
import TestSupport
import TileGeometry

/// A temporary folder holding hand-written pyramids: a `.dzi` from ``DZIDescriptor/xml`` and a tile file for every
/// tile of every level, filled with bytes that name the tile (the server serves bytes as on disk, so they need not
/// be images).
final class PyramidFixture {
    /// The folder served as ROOT (inside ``base``).
    let root: String
    /// The temporary folder holding ROOT, removed with the fixture.
    private let folder: TemporaryDirectory

    /// A folder next to ROOT (for files that must never be served) and for `Public/`.
    var base: String { folder.path }

    /// Creates an empty ROOT in a fresh temporary folder.
    init() throws {
        folder = try TemporaryDirectory(prefix: "server-tests")
        root = folder.path + "/root"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    /// Writes pyramid `name` (a path relative to `folder`, default ROOT) with `tileBytes`-byte tiles; returns its
    /// descriptor. With `writeDescriptorLast` the tiles are written before the `.dzi`.
    @discardableResult
    func addPyramid(
        _ name: String, width: Int, height: Int, tileSize: Int = 256, format: String = "jpg", tileBytes: Int = 100, in folder: String? = nil
    ) throws -> DZIDescriptor {
        let folder = folder ?? root
        let descriptor = DZIDescriptor(width: width, height: height, tileSize: tileSize, overlap: 0, format: format)
        let pyramid = descriptor.pyramid
        let files = "\(folder)/\(name)_files"
        for level in 0...pyramid.maxLevel {
            try FileManager.default.createDirectory(atPath: "\(files)/\(level)", withIntermediateDirectories: true)
            let grid = pyramid.grid(level)
            for column in 0..<grid.columns {
                for row in 0..<grid.rows {
                    let bytes = Self.tileBytes(level: level, column: column, row: row, count: tileBytes)
                    try Data(bytes).write(to: URL(fileURLWithPath: "\(files)/\(level)/\(column)_\(row).\(format)"))
                }
            }
        }
        try descriptor.xml.write(toFile: "\(folder)/\(name).dzi", atomically: true, encoding: .utf8)
        return descriptor
    }

    /// Removes pyramid `name` (its `.dzi` and tiles folder).
    func removePyramid(_ name: String) throws {
        try FileManager.default.removeItem(atPath: "\(root)/\(name).dzi")
        try FileManager.default.removeItem(atPath: "\(root)/\(name)_files")
    }

    /// Writes `contents` to `path` relative to ``base``, creating folders.
    func write(_ contents: String, to path: String) throws {
        let url = URL(fileURLWithPath: base + "/" + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try contents.write(to: url, atomically: true, encoding: .utf8)
    }

    /// Creates a symbolic link at `path` (relative to ``base``) pointing at `destination` (absolute).
    func symlink(_ path: String, to destination: String) throws {
        try FileManager.default.createSymbolicLink(atPath: base + "/" + path, withDestinationPath: destination)
    }

    /// The bytes of a tile: its address, repeated to `count` bytes.
    static func tileBytes(level: Int, column: Int, row: Int, count: Int) -> [UInt8] {
        let stamp = Array("[\(level)/\(column)_\(row)]".utf8)
        return (0..<count).map { stamp[$0 % stamp.count] }
    }
}
