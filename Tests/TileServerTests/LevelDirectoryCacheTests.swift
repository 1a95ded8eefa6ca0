import Foundation
import Glibc
import Testing

@testable import TileServer
@testable import TileSources

/// The level folders held open are bounded by the cache's capacity whatever the catalog holds, stay usable by whoever
/// holds one after it is evicted, and are dropped at a rescan once moved out of ROOT — after which their tiles are not
/// served.
@Suite struct LevelDirectoryCacheTests {
    /// The real path of ROOT and its pyramid `name`'s tiles folder.
    static func folders(_ fixture: PyramidFixture, _ name: String) -> (root: String, files: String) {
        let root = PathContainment.realPath(fixture.root)!
        return (root, root + "/" + name + "_files")
    }

    @Test func atMostCapacityFoldersAreHeldOpen() throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("photo", width: 1000, height: 700)  // levels 0…10
        let (root, files) = Self.folders(fixture, "photo")
        let cache = LevelDirectoryCache(capacity: 4)
        for image in 1...3 {
            for level in 0...10 {
                #expect(cache.directory(image: image, level: level, path: "\(files)/\(level)", root: root) != nil)
                #expect(cache.count <= 4)
            }
        }
        #expect(cache.count == 4 && cache.openCount == 33)
        // The most recently used are kept: asking again opens nothing.
        #expect(cache.directory(image: 3, level: 10, path: "\(files)/10", root: root) != nil && cache.openCount == 33)
        cache.removeAll(images: [3])
        #expect(cache.count == 0)
        // Missing folders and a capacity of 0 give none (the tile takes the path-based read).
        #expect(cache.directory(image: 1, level: 11, path: "\(files)/11", root: root) == nil)
        #expect(LevelDirectoryCache(capacity: 0).directory(image: 1, level: 0, path: "\(files)/0", root: root) == nil)
    }

    @Test func theBudgetFollowsTheDescriptorLimit() {
        var configuration = ServerConfiguration(root: "/")
        let budgets = [96, 256, 1024, 20_000, 1 << 20].map { configuration.levelDirectoryBudget(descriptorLimit: $0) }
        #expect(budgets == [24, 64, 128, 2500, 4096])
        configuration.levelDirectoryLimit = 10
        #expect(configuration.levelDirectoryBudget(descriptorLimit: 1 << 20) == 10)
    }

    @Test func anEvictedFolderStaysOpenWhileHeld() throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("photo", width: 1000, height: 700)
        let (root, files) = Self.folders(fixture, "photo")
        let cache = LevelDirectoryCache(capacity: 1)
        let held = try #require(cache.directory(image: 1, level: 10, path: "\(files)/10", root: root))
        _ = cache.directory(image: 1, level: 9, path: "\(files)/9", root: root)  // evicts level 10
        #expect(cache.count == 1)
        // Still the level-10 folder: its 3_2 tile exists there, not in level 9 (2 × 2 tiles).
        let tile = openat(held.descriptor, "3_2.jpg", O_RDONLY | O_CLOEXEC)
        #expect(tile >= 0)
        if tile >= 0 { close(tile) }
    }

    @Test func foldersOutsideRootAreRefusedAndDroppedWhenMovedOut() throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("photo", width: 1000, height: 700)
        let (root, files) = Self.folders(fixture, "photo")
        try FileManager.default.createDirectory(atPath: fixture.base + "/outside", withIntermediateDirectories: true)
        try fixture.symlink("root/photo_files/link", to: fixture.base + "/outside")
        let cache = LevelDirectoryCache(capacity: 8)
        #expect(cache.directory(image: 1, level: 0, path: "\(files)/link", root: root) == nil)
        _ = try #require(cache.directory(image: 1, level: 10, path: "\(files)/10", root: root))
        _ = try #require(cache.directory(image: 2, level: 9, path: "\(files)/9", root: root))
        #expect(cache.dropOutside(root: root).isEmpty && cache.count == 2)
        try FileManager.default.moveItem(atPath: "\(files)/10", toPath: fixture.base + "/outside/10")
        #expect(cache.dropOutside(root: root) == [1])
        #expect(cache.count == 1)
    }

    @Test func aLevelFolderMovedOutOfRootIsNotServedAfterARescan() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("photo", width: 1000, height: 700)
        try FileManager.default.createDirectory(atPath: fixture.base + "/outside", withIntermediateDirectories: true)
        var configuration = testConfiguration(root: fixture.root)
        configuration.rescanInterval = .seconds(3600)
        configuration.fullRescanInterval = .seconds(3600)
        configuration.levelDirectoryLimit = 64
        try await withServer(fixture, configuration) { server in
            let target = "/images/photo_files/10/1_1.jpg"
            // Twice: cached, and its file and folder held open.
            #expect(try fetch(server, target).status == 200)
            #expect(try fetch(server, target).status == 200)
            #expect(server.statistics.levelDirectories == 1 && server.statistics.levelDirectoryBudget == 64)
            try FileManager.default.moveItem(atPath: fixture.root + "/photo_files/10", toPath: fixture.base + "/outside/10")
            // A file written into the moved folder afterwards must not be served either.
            try Data("new".utf8).write(to: URL(fileURLWithPath: fixture.base + "/outside/10/0_0.jpg"))
            _ = await server.rescan()
            #expect(try fetch(server, target).status == 404)
            #expect(try fetch(server, "/images/photo_files/10/0_0.jpg").status == 404)
            #expect(try fetch(server, "/images/photo_files/9/0_0.jpg").status == 200)
            // The tiles folder itself moved out: the pyramid goes.
            try FileManager.default.moveItem(atPath: fixture.root + "/photo_files", toPath: fixture.base + "/outside/photo_files")
            _ = await server.rescan()
            #expect(try fetch(server, "/images/photo_files/9/0_0.jpg").status == 404)
        }
    }
}
