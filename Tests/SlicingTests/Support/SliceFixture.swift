import Foundation
import Slicing
import TestSupport
import TileGeometry

/// A scratch output folder per test, and helpers to slice into it and read the result back.
final class SliceFixture {
    private let folder: TemporaryDirectory
    /// The scratch folder's path.
    var directory: String { folder.path }

    init() throws {
        folder = try TemporaryDirectory(prefix: "slicing-tests")
    }

    /// Options writing lossless PAM tiles.
    static func options(tileSize: Int = 256, overlap: Int = 0, threads: Int = 2, force: Bool = false) -> SliceOptions {
        var options = SliceOptions(fileExtension: "pam") { PAMTileEncoding() }
        options.tileSize = tileSize
        options.overlap = overlap
        options.threads = threads
        options.force = force
        return options
    }

    /// The names in the output folder, sorted (dot-names included: leftovers must show).
    func listing(_ subpath: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: subpath.isEmpty ? directory : "\(directory)/\(subpath)").sorted()
    }

    /// Reads tile (`column`, `row`) of `level` of pyramid `name`.
    func tile(_ name: String, level: Int, column: Int, row: Int) throws -> PAMImage {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)_files/\(level)/\(column)_\(row).pam"))
        return try PAMImage(decoding: [UInt8](data))
    }

    /// The text of `name.dzi`.
    func descriptor(_ name: String) throws -> String {
        try String(contentsOfFile: "\(directory)/\(name).dzi", encoding: .utf8)
    }

    /// Every file and folder under the output folder, as relative paths, with their contents' sizes — a snapshot to
    /// show something was left untouched.
    func snapshot() throws -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory)
        while let path = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: "\(directory)/\(path)", isDirectory: &isFolder)
            result[path] = isFolder.boolValue ? Data() : try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(path)"))
        }
        return result
    }
}
