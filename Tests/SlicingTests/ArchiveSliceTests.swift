import Archive
import Foundation
import TestSupport
import Testing
import TileGeometry

@testable import Slicing

/// `--container szi`: one stored ZIP with the folder layout's exact bytes, published atomically like a folder.
@Suite struct ArchiveSliceTests {
    static let image = TestImage.random(width: 700, height: 530, channels: 3, seed: 11)

    static func options(_ container: PyramidContainer, tileSize: Int = 128, force: Bool = false) -> SliceOptions {
        var options = SliceFixture.options(tileSize: tileSize, overlap: tileSize > 1 ? 1 : 0, threads: 3, force: force)
        options.container = container
        return options
    }

    /// Every tile and the descriptor of the SZI at `path` equal the folder pyramid `name` in `fixture`.
    static func expectSameAsFolder(_ path: String, name: String, in fixture: SliceFixture) throws {
        let archive = try SZIArchive(path: path)
        #expect(archive.topFolder == name && archive.stem == name)
        #expect(String(decoding: archive.descriptorBytes, as: UTF8.self) == (try fixture.descriptor(name)))
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let pyramid = archive.descriptor.pyramid
        var compared = 0
        for level in 0...pyramid.maxLevel {
            let grid = pyramid.grid(level)
            for row in 0..<grid.rows {
                for column in 0..<grid.columns {
                    let place = try #require(archive.tile(level: level, column: column, row: row))
                    let stored = try ZIPDirectory.read(fd, at: place.offset, count: place.size, label: path)
                    let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(fixture.directory)/\(name)_files/\(level)/\(column)_\(row).pam")))
                    #expect(stored == file, "tile \(level)/\(column)_\(row)")
                    compared += 1
                }
            }
        }
        #expect(compared == archive.tileCount && compared == PyramidBuilder.tileCount(of: pyramid))
    }

    /// `unzip -t` and Python's `zipfile` accept the archive, every entry stored.
    static func expectToolsAccept(_ path: String) throws {
        let unzip = try ExternalTool.run("/usr/bin/unzip", ["-t", path])
        #expect(unzip.status == 0 && unzip.output.contains("No errors detected"), "\(unzip.output) \(unzip.errors)")
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                assert all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist())
                print(len(z.infolist()))
            """
        let python = try ExternalTool.run("/usr/bin/python3", ["-c", script, path])
        #expect(python.status == 0, "\(python.errors)")
    }

    @Test(arguments: [false, true]) func archiveHoldsTheFolderLayoutsExactBytes(zip64: Bool) throws {
        let fixture = try SliceFixture()
        _ = try PyramidBuilder(options: Self.options(.folder)).slice(MemoryRowSource(Self.image), into: fixture.directory, name: "pic")
        var options = Self.options(.szi)
        if zip64 { options.zip64Threshold = 0 }
        let summary = try PyramidBuilder(options: options).slice(MemoryRowSource(Self.image), into: fixture.directory, name: "pic")
        let path = "\(fixture.directory)/pic.szi"
        #expect(summary.path == path && summary.container == "szi")
        #expect(summary.fileBytes == (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int))
        #expect(try fixture.listing() == ["pic.dzi", "pic.szi", "pic_files"], "only the archive is added, no staging is left")
        try Self.expectSameAsFolder(path, name: "pic", in: fixture)
        try Self.expectToolsAccept(path)
    }

    @Test func moreThan65535TilesUseZIP64AndStillOpen() throws {
        let fixture = try SliceFixture()
        let image = TestImage.random(width: 300, height: 250, channels: 1, seed: 3)
        let summary = try PyramidBuilder(options: Self.options(.szi, tileSize: 1)).slice(
            MemoryRowSource(image), into: fixture.directory, name: "tiny")
        #expect(summary.tiles > 65_535)
        let archive = try SZIArchive(path: "\(fixture.directory)/tiny.szi")
        #expect(archive.tileCount == summary.tiles)
        try Self.expectToolsAccept("\(fixture.directory)/tiny.szi")
    }

    @Test func cancelledSliceLeavesNoArchive() throws {
        let fixture = try SliceFixture()
        let builder = PyramidBuilder(options: Self.options(.szi))
        let source = MemoryRowSource(Self.image)
        source.rowsPerRead = 10
        source.beforeRead = { row in if row >= 300 { builder.cancel() } }
        try SliceSafetyTests.expectFailure(.cancelled, slicing: source, with: builder, in: fixture)
        #expect(try fixture.listing().isEmpty)
    }

    @Test func existingArchiveIsKeptWithoutForceAndReplacedWholeWithIt() throws {
        let fixture = try SliceFixture()
        let path = "\(fixture.directory)/pic.szi"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        try SliceSafetyTests.expectFailure(
            .destinationExists, slicing: MemoryRowSource(Self.image), with: PyramidBuilder(options: Self.options(.szi)), in: fixture, name: "pic")
        _ = try PyramidBuilder(options: Self.options(.szi, force: true)).slice(MemoryRowSource(Self.image), into: fixture.directory, name: "pic")
        #expect(try SZIArchive(path: path).tileCount > 0)
        #expect(try fixture.listing() == ["pic.szi"])
    }

    @Test func killedSlicesArchiveIsSweptWithItsStagingFolder() throws {
        let fixture = try SliceFixture()
        let staging = try StagingFolder.create(directory: fixture.directory, name: "pic", force: false, container: .szi)
        let writer = try ArchiveTileWriter(path: staging.archivePath, name: "pic", fileExtension: "pam")
        try writer.writeTile([1, 2, 3], level: 0, column: 0, row: 0)
        // As if the slice were killed here: its owner file names a process that has ended.
        let ended = try StagingSweepTests.endedPID()
        let owner = "\(staging.path)/\(StagingOwner.fileName)"
        try FileManager.default.removeItem(atPath: owner)
        try Data(StagingSweepTests.owner(pid: ended).utf8).write(to: URL(fileURLWithPath: owner))
        let removed = StagingSweep.removeLeftovers(in: fixture.directory)
        #expect(removed.count == 1 && removed.allSatisfy(\.removed), "\(removed)")
        #expect(try fixture.listing().isEmpty)
    }
}
