import Foundation
import Glibc
import Logging
import Synchronization
import Testing
import TileGeometry

@testable import TileServer
@testable import TileSources

/// Rescans cost what changed: folders whose stamp is unchanged are not listed and their pyramids not looked at, while
/// pyramids added, removed and re-sliced still appear, disappear and change version, pyramids not ready yet are looked
/// at again, a full walk catches in-place edits, and a scan that runs out of descriptors keeps the catalog.
@Suite struct CatalogScannerTests {
    static func catalog(_ fixture: PyramidFixture, fullWalkEvery: Int = 1000, list: @escaping CatalogScanner.Lister = DirectoryWalker.list)
        -> ImageCatalog
    {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return ImageCatalog(root: PathContainment.realPath(fixture.root)!, maxDepth: 4, logger: logger, fullWalkEvery: fullWalkEvery, list: list)
    }

    /// Sets the modification time of `folders` an hour back, so that scans trust their stamps at once (a folder
    /// modified in the last second is listed again, as a change in the same clock tick could leave its time alone).
    static func age(_ folders: [String]) {
        let past = timeval(tv_sec: time(nil) - 3600, tv_usec: 0)
        for folder in folders {
            let times = [past, past]
            #expect(utimes(folder, times) == 0, "utimes \(folder)")
        }
    }

    @Test func anUnchangedRescanLooksAtNoPyramid() throws {
        let fixture = try PyramidFixture()
        for index in 0..<30 { try fixture.addPyramid("p\(index)", width: 300, height: 200) }
        for index in 0..<20 { try fixture.addPyramid("maps/m\(index)", width: 300, height: 200) }
        Self.age([fixture.root, fixture.root + "/maps"])
        let catalog = Self.catalog(fixture)
        #expect(catalog.rescan().added.count == 50)
        #expect(catalog.lastScanCounts == ScanCounts(scanner: .init(foldersChecked: 0, foldersListed: 2), descriptorsExamined: 50))
        let again = catalog.rescan()
        #expect(again.added.isEmpty && again.removed.isEmpty)
        #expect(catalog.lastScanCounts == ScanCounts(scanner: .init(foldersChecked: 2, foldersListed: 0), descriptorsExamined: 0))
        #expect(catalog.count == 50)
    }

    @Test func addedRemovedAndReslicedPyramidsAreSeenLookingOnlyAtTheirFolder() throws {
        let fixture = try PyramidFixture()
        for index in 0..<10 { try fixture.addPyramid("p\(index)", width: 300, height: 200) }
        for index in 0..<10 { try fixture.addPyramid("maps/m\(index)", width: 300, height: 200) }
        Self.age([fixture.root, fixture.root + "/maps"])
        let catalog = Self.catalog(fixture)
        catalog.rescan()
        let before = try #require(catalog.images.first { $0.name == "maps/m3" })

        try fixture.addPyramid("maps/new", width: 300, height: 200)
        #expect(catalog.rescan().added.map(\.name) == ["maps/new"])
        // Only `maps` was listed; its 11 descriptors were looked at, ROOT's 10 were not.
        #expect(catalog.lastScanCounts == ScanCounts(scanner: .init(foldersChecked: 1, foldersListed: 1), descriptorsExamined: 11))

        try fixture.removePyramid("p4")
        #expect(catalog.rescan().removed.map(\.name) == ["p4"])
        #expect(!catalog.images.contains { $0.name == "p4" })

        // A re-slice publishes a new `.dzi` by rename.
        try fixture.addPyramid("maps/m3", width: 900, height: 200)
        let changes = catalog.rescan()
        #expect(changes.added.map(\.name) == ["maps/m3"] && changes.removed.map(\.name) == ["maps/m3"])
        let after = try #require(catalog.images.first { $0.name == "maps/m3" })
        #expect(after.version != before.version && after.pyramid.width == 900 && !before.isServed)

        // A whole folder removed takes its pyramids with it.
        try FileManager.default.removeItem(atPath: fixture.root + "/maps")
        #expect(catalog.rescan().removed.count == 11)
        #expect(catalog.images.map(\.name).sorted() == (0..<10).filter { $0 != 4 }.map { "p\($0)" }.sorted())
    }

    @Test func pyramidsNotReadyYetAreLookedAtAgainThoughTheirFolderIsUnchanged() throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("ready", width: 300, height: 200)
        // `late.dzi` points into a dot-folder the catalog never walks: filling it later changes no folder it watches.
        try FileManager.default.createDirectory(atPath: fixture.root + "/.store", withIntermediateDirectories: true)
        try fixture.addPyramid("late", width: 300, height: 200)
        try FileManager.default.moveItem(atPath: fixture.root + "/late.dzi", toPath: fixture.root + "/.store/saved.dzi")
        try fixture.symlink("root/late.dzi", to: fixture.root + "/.store/late.dzi")
        Self.age([fixture.root])
        let catalog = Self.catalog(fixture)
        catalog.rescan()
        #expect(catalog.images.map(\.name) == ["ready"])

        try FileManager.default.moveItem(atPath: fixture.root + "/.store/saved.dzi", toPath: fixture.root + "/.store/late.dzi")
        #expect(catalog.rescan().added.map(\.name) == ["late"])
        #expect(catalog.lastScanCounts == ScanCounts(scanner: .init(foldersChecked: 1, foldersListed: 0), descriptorsExamined: 1))
        catalog.rescan()
        #expect(catalog.lastScanCounts.descriptorsExamined == 0)
    }

    @Test func aFullWalkCatchesADescriptorRewrittenInPlace() throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("photo", width: 300, height: 200)
        Self.age([fixture.root])
        let catalog = Self.catalog(fixture, fullWalkEvery: 2)
        catalog.rescan()  // scan 0: full
        let before = try #require(catalog.images.first)
        // Rewritten in place: same inode, the folder's times untouched.
        let handle = try #require(FileHandle(forWritingAtPath: fixture.root + "/photo.dzi"))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(DZIDescriptorXML.xml(width: 500, height: 200).utf8))
        try handle.close()
        catalog.rescan()  // scan 1: incremental, the folder looks unchanged
        #expect(catalog.images.first === before)
        #expect(catalog.rescan().added.count == 1)  // scan 2: full
        #expect(catalog.images.first?.pyramid.width == 500 && catalog.images.first?.version != before.version)
    }

    @Test func aScanOutOfDescriptorsKeepsTheLastCatalog() throws {
        let fixture = try PyramidFixture()
        for index in 0..<5 { try fixture.addPyramid("p\(index)", width: 300, height: 200) }
        let starved = Switch()
        let catalog = Self.catalog(fixture, fullWalkEvery: 1) {
            (path: String, relative: String) throws(DirectoryWalker.ListingError) -> DirectoryWalker.Listing in
            if starved.isOn { throw .outOfDescriptors }
            return try DirectoryWalker.list(path, relative: relative)
        }
        catalog.rescan()
        #expect(catalog.count == 5)
        starved.set(true)
        try fixture.removePyramid("p0")
        let changes = catalog.rescan()
        #expect(changes.added.isEmpty && changes.removed.isEmpty && catalog.count == 5)
        // Once descriptors are back, the next scan sees what changed meanwhile.
        starved.set(false)
        #expect(catalog.rescan().removed.map(\.name) == ["p0"])
    }
}

/// A descriptor's XML, for files written by hand.
enum DZIDescriptorXML {
    static func xml(width: Int, height: Int) -> String {
        DZIDescriptor(width: width, height: height, tileSize: 256, overlap: 0, format: "jpg").xml
    }
}

/// A flag shared with a closure.
final class Switch: Sendable {
    private let state = Atomic<Bool>(false)
    var isOn: Bool { state.load(ordering: .relaxed) }
    func set(_ on: Bool) { state.store(on, ordering: .relaxed) }
}
