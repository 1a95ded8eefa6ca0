import Foundation
import Testing

@testable import TileServer
@testable import TileSources

/// The catalog's walk finds published pyramids only: never one inside a slice's staging folder, finished or leftover.
@Suite struct DirectoryWalkerTests {
    @Test func stagingFoldersAreNeverRead() throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("photo", width: 300, height: 300)
        try fixture.addPyramid("maps/city", width: 300, height: 300)
        // A complete pyramid in a staging folder (about to be published, or left by a killed slice), with its owner
        // file, beside the published one and in a subfolder.
        for staging in ["/.photo.tiler-ab12cd", "/maps/.city.tiler-Q9w8e7"] {
            try fixture.addPyramid("city", width: 300, height: 300, in: fixture.root + staging)
            try fixture.write("pid=4242 host=here start=1 boot=- pidns=-\n", to: "root\(staging)/.owner")
        }
        let scanner = CatalogScanner(root: fixture.root, maxDepth: 4, fullWalkEvery: 1)
        let found = try scanner.scan().listed.map(\.name).sorted()
        #expect(found == ["maps/city", "photo"])
    }

    @Test func archivesAreFoundAndANameGoesToADZIThenAnSZIThenATIFF() throws {
        let fixture = try PyramidFixture()
        try fixture.addArchive("packed", width: 300, height: 300)
        try fixture.addArchive("upper", width: 300, height: 300, fileName: "UPPER.SZI")
        try fixture.addPyramid("both", width: 300, height: 300)
        try fixture.addArchive("both", width: 300, height: 300)
        try fixture.addArchive("pair", width: 300, height: 300)
        try Data("II*\0".utf8).write(to: URL(fileURLWithPath: fixture.root + "/pair.tif"))
        // A slice's staging folder holding an archive being written.
        try FileManager.default.createDirectory(atPath: fixture.root + "/.packed.tiler-ab12cd", withIntermediateDirectories: true)
        try fixture.addArchive("hidden", width: 300, height: 300, fileName: ".packed.tiler-ab12cd/packed.szi")
        let listing = try DirectoryWalker.list(fixture.root, relative: "")
        let found = listing.descriptors.map { "\($0.name) \($0.kind)" }.sorted()
        #expect(found == ["UPPER archive", "both descriptor", "packed archive", "pair archive"])
        #expect(listing.refused.map(\.path).sorted() == ["both.szi", "pair.tif"], "\(listing.refused)")
    }

    /// The walk stops `maxDepth` folders below ROOT, and says so: each folder left unscanned is refused by name
    /// (logged once), so a pyramid too deep is not left out in silence.
    @Test func foldersBeyondTheDepthAreNamedNotSilentlySkipped() throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("a/b/shallow", width: 300, height: 300)
        try fixture.addPyramid("a/b/c/d/deep", width: 300, height: 300)
        let scanner = CatalogScanner(root: fixture.root, maxDepth: 2, fullWalkEvery: 1)
        let changes = try scanner.scan()
        #expect(changes.listed.map(\.name) == ["a/b/shallow"])
        #expect(changes.refused.map(\.path) == ["a/b/c"] && changes.refused.first?.reason.contains("deeper than 2") == true, "\(changes.refused)")
    }
}
