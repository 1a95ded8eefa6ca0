import Foundation
import Testing

@testable import Slicing

/// Removing a tree never reaches outside it through a link.
@Suite struct TreeRemovalTests {
    /// Opens `path` as a folder for the removal calls.
    static func withFolder<T>(_ path: String, _ body: (Int32) throws -> T) throws -> T {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(fd >= 0)
        defer { close(fd) }
        return try body(fd)
    }

    @Test func removesEverythingAndLinksAsLinks() throws {
        let tree = try SliceFixture()
        let outside = try SliceFixture()
        try FileManager.default.createDirectory(atPath: "\(outside.directory)/deep/er", withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: URL(fileURLWithPath: "\(outside.directory)/deep/er/keep.txt"))
        let before = try outside.snapshot()
        try FileManager.default.createDirectory(atPath: "\(tree.directory)/a/b/c", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(tree.directory)/a/b/c/file"))
        try FileManager.default.createSymbolicLink(atPath: "\(tree.directory)/a/b/to-folder", withDestinationPath: outside.directory)
        let file = "\(outside.directory)/deep/er/keep.txt"
        try FileManager.default.createSymbolicLink(atPath: "\(tree.directory)/a/to-file", withDestinationPath: file)
        try FileManager.default.createSymbolicLink(atPath: "\(tree.directory)/to-deep", withDestinationPath: "\(outside.directory)/deep")
        try Data("k".utf8).write(to: URL(fileURLWithPath: "\(tree.directory)/.owner"))

        let code = try Self.withFolder(tree.directory) { TreeRemoval.removeContents(of: $0, depth: 0, keeping: ".owner") }
        #expect(code == nil)
        #expect(try tree.listing() == [".owner"])
        #expect(try outside.snapshot() == before)
    }

    @Test func aTreeTooDeepIsRefusedAfterRemovingWhatItCan() throws {
        let tree = try SliceFixture()
        let chain = (0...TreeRemoval.maxDepth).map { _ in "d" }.joined(separator: "/")
        try FileManager.default.createDirectory(atPath: "\(tree.directory)/\(chain)", withIntermediateDirectories: true)
        // The deepest folder is not read, so this file stays, and so does every folder above it.
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(tree.directory)/\(chain)/bottom"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(tree.directory)/shallow"))
        let code = try Self.withFolder(tree.directory) { TreeRemoval.removeContents(of: $0, depth: 0) }
        #expect(code == ELOOP)
        #expect(try tree.listing() == ["d"])
    }

    @Test func aMissingEntryIsAlreadyGone() throws {
        let tree = try SliceFixture()
        let code = try Self.withFolder(tree.directory) { TreeRemoval.remove(Array("missing".utf8CString), in: $0, depth: 0) }
        #expect(code == nil)
    }
}
