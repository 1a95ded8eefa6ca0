import Foundation
import Testing

@testable import TileServer

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
}
