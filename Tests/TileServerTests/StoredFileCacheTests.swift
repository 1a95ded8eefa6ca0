import Foundation
import ImageCodecs
import TestSupport
import Testing
import TileGeometry

@testable import TileServer

/// Pyramidal TIFFs and SZIs are read when the catalog finds them and closed again; a tile request reopens its file
/// through the shared cache of open files, which holds at most its capacity whatever the size of the catalog, and
/// refuses a file replaced since it was listed.
@Suite(.serialized) struct StoredFileCacheTests {
    static let names = ["one", "two", "three"]
    static let top = DZIDescriptor(width: 600, height: 400, tileSize: 256, overlap: 0, format: "jpg").pyramid.maxLevel

    static func makeFixture() throws -> PyramidFixture {
        let fixture = try PyramidFixture()
        for name in names {
            try fixture.addVipsTIFF(
                name + ".tif", picture: TestPicture.make(width: 600, height: 400),
                options: ["--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid", "--compression", "jpeg"])
        }
        return fixture
    }

    /// The configuration of a server on `fixture` that holds at most one stored file open.
    static func configuration(_ fixture: PyramidFixture) -> ServerConfiguration {
        var configuration = testConfiguration(root: fixture.root)
        configuration.levelDirectoryLimit = 1
        return configuration
    }

    @Test func filesAreOpenedOnDemandAndBoundedByTheCache() async throws {
        let fixture = try await blocking { try Self.makeFixture() }
        try await EmbeddedConnection.with(Self.configuration(fixture)) { connection in
            let context = connection.runtime.context
            #expect(context.catalog.images.count == 3)
            // Listed, and closed again: not one of their descriptors is held.
            #expect(try Self.openTIFFs(under: fixture.root) == 0)
            #expect(context.statistics.storedFilesOpen == 0)
            for name in Self.names {
                let stored = try TIFFPyramid(path: fixture.root + "/\(name).tif")
                let served = try await StoredPyramidTests.get(connection, "/images/\(name)_files/\(Self.top)/1_0.jpg")
                #expect(served.status == 200)
                #expect(served.bytes == (try stored.jpegTile(level: 0, column: 1, row: 0)), "\(name)")
            }
            let statistics = context.statistics
            #expect(statistics.storedFilesOpen == 1 && statistics.storedFileOpenings == 3)
            #expect(try Self.openTIFFs(under: fixture.root) == 1)
            let metrics = String(decoding: try await StoredPyramidTests.get(connection, "/metrics").bytes, as: UTF8.self)
            #expect(metrics.contains("tiler_stored_files_open 1") && metrics.contains("tiler_stored_file_opens_total 3"))
        }
    }

    @Test func aFileReplacedSinceItWasListedIsNotServedUnderTheOldVersion() async throws {
        let fixture = try await blocking { try Self.makeFixture() }
        try await EmbeddedConnection.with(Self.configuration(fixture)) { connection in
            let catalog = connection.runtime.context.catalog
            let before = try #require(catalog.images.first { $0.name == "one" })
            // Another picture written over `one.tif` (a new inode, renamed over it), before its file was reopened.
            try await blocking {
                try fixture.addVipsTIFF(
                    "replacement.tif", picture: TestPicture.make(width: 600, height: 400, channels: 1),
                    options: ["--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid", "--compression", "jpeg"])
                #expect(rename(fixture.root + "/replacement.tif", fixture.root + "/one.tif") == 0)
            }
            let stale = try await StoredPyramidTests.get(connection, "\(before.versionedPrefix)_files/\(Self.top)/0_0.jpg")
            #expect(stale.status == 500)
            catalog.rescan()
            let after = try #require(catalog.images.first { $0.name == "one" })
            #expect(after.version != before.version)
            let stored = try TIFFPyramid(path: fixture.root + "/one.tif")
            let fresh = try await StoredPyramidTests.get(connection, "\(after.versionedPrefix)_files/\(Self.top)/0_0.jpg")
            let expected = try stored.jpegTile(level: 0, column: 0, row: 0)
            #expect(fresh.status == 200 && fresh.bytes == expected)
        }
    }

    @Test func archivesAreOpenedOnDemandAndBoundedByTheCache() async throws {
        let fixture = try PyramidFixture()
        let names = (0..<6).map { "packed\($0)" }
        for name in names { try fixture.addArchive(name, width: 1024, height: 1024, tileBytes: 300) }
        try await EmbeddedConnection.with(Self.configuration(fixture)) { connection in
            let context = connection.runtime.context
            #expect(context.catalog.images.count == names.count)
            // Indexed, and closed again: not one of their descriptors is held.
            #expect(try Self.openFiles(under: fixture.root, suffix: ".szi") == 0)
            #expect(context.statistics.storedFilesOpen == 0)
            for round in 0..<2 {
                for name in names {
                    let served = try await StoredPyramidTests.get(connection, "/images/\(name)_files/10/\(round)_1.jpg")
                    #expect(served.status == 200)
                    #expect(served.bytes == PyramidFixture.tileBytes(level: 10, column: round, row: 1, count: 300), "\(name)")
                    #expect(try Self.openFiles(under: fixture.root, suffix: ".szi") <= 1, "more archives held open than the cache's one")
                }
            }
            let statistics = context.statistics
            #expect(statistics.storedFilesOpen == 1 && statistics.storedFileOpenings == 2 * names.count)
        }
    }

    @Test func anArchiveReplacedSinceItWasIndexedIsNotServedUnderTheOldVersion() async throws {
        let fixture = try PyramidFixture()
        try fixture.addArchive("packed", width: 1024, height: 1024, tileBytes: 300)
        try await EmbeddedConnection.with(Self.configuration(fixture)) { connection in
            let catalog = connection.runtime.context.catalog
            let before = try #require(catalog.images.first { $0.name == "packed" })
            // Another archive of the same size renamed over it (a new inode) before it was reopened: its old index
            // would point into the new file.
            try await blocking {
                try fixture.addArchive("packed", width: 1024, height: 1024, tileBytes: 301, fileName: "replacement.szi")
                #expect(rename(fixture.root + "/replacement.szi", fixture.root + "/packed.szi") == 0)
            }
            let stale = try await StoredPyramidTests.get(connection, "\(before.versionedPrefix)_files/10/0_0.jpg")
            #expect(stale.status == 500, "a tile of the old version served from the new file")
            catalog.rescan()
            let after = try #require(catalog.images.first { $0.name == "packed" })
            #expect(after.version != before.version)
            let fresh = try await StoredPyramidTests.get(connection, "\(after.versionedPrefix)_files/10/0_0.jpg")
            #expect(fresh.status == 200 && fresh.bytes == PyramidFixture.tileBytes(level: 10, column: 0, row: 0, count: 301))
        }
    }

    /// How many of this process's descriptors are open on `.tif` files under `root`.
    static func openTIFFs(under root: String) throws -> Int {
        try openFiles(under: root, suffix: ".tif")
    }

    /// How many of this process's descriptors are open on files under `root` whose names end in `suffix`.
    static func openFiles(under root: String, suffix: String) throws -> Int {
        let real = URL(fileURLWithPath: root).resolvingSymlinksInPath().path + "/"
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { return false }
            return (target.hasPrefix(real) || target.hasPrefix(root + "/")) && target.hasSuffix(suffix)
        }
    }
}
