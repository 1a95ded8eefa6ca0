import Foundation
import TestSupport
import Testing
import TileGeometry

@testable import Archive

/// ``SZIArchive`` indexes good archives (its own and libvips') and refuses damaged ones with one line.
@Suite struct SZIArchiveTests {
    static let descriptor = DZIDescriptor(width: 600, height: 400, tileSize: 256, overlap: 0, format: "jpg")

    /// Every tile of ``descriptor``'s pyramid as `level-column-row` text, plus the descriptor, under `top/`.
    static func entries(top: String = "p") -> [(name: String, bytes: [UInt8])] {
        var entries = descriptor.pyramid.tiles.map { tile in
            (name: "\(top)/\(top)_files/\(tile.level)/\(tile.column)_\(tile.row).jpg", bytes: Array("\(tile.level)-\(tile.column)-\(tile.row)".utf8))
        }
        entries.append(("\(top)/\(top).dzi", Array(descriptor.xml.utf8)))
        return entries
    }

    /// Writes `entries` into `name` in `folder` and returns the archive's bytes.
    static func archive(_ entries: [(name: String, bytes: [UInt8])], in folder: TemporaryDirectory, name: String = "a.szi", zip64: Bool = false)
        throws -> [UInt8]
    {
        let writer = try ZIPWriter(path: folder.file(name), zip64Threshold: zip64 ? 0 : UInt64(UInt32.max))
        for entry in entries { try entry.bytes.withUnsafeBytes { try writer.append(name: entry.name, bytes: $0) } }
        _ = try writer.finish()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.file(name))))
    }

    /// Opens `bytes` as an archive, expecting a refusal whose one line contains `words`.
    static func expectRefused(_ bytes: [UInt8], _ words: String, in folder: TemporaryDirectory) throws {
        let path = try folder.write(bytes, to: "damaged.szi")
        do {
            _ = try SZIArchive(path: path)
            Issue.record("a damaged archive was accepted; expected \"\(words)\"")
        } catch {
            #expect(error.message.contains(words), "\(error.message)")
            #expect(!error.message.contains("\n"))
        }
    }

    /// The offset of the last `signature` in `bytes`.
    static func lastRecord(_ signature: [UInt8], in bytes: [UInt8]) -> Int {
        (0...(bytes.count - 4)).last { Array(bytes[$0..<$0 + 4]) == signature }!
    }

    static func patch(_ bytes: inout [UInt8], at offset: Int, _ value: some FixedWidthInteger) {
        withUnsafeBytes(of: value.littleEndian) { for (index, byte) in $0.enumerated() { bytes[offset + index] = byte } }
    }

    static let centralSignature: [UInt8] = [0x50, 0x4b, 0x01, 0x02]
    static let endSignature: [UInt8] = [0x50, 0x4b, 0x05, 0x06]

    @Test(arguments: [false, true]) func indexesEveryTileAndTheDescriptor(zip64: Bool) throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        let entries = Self.entries()
        let bytes = try Self.archive(entries, in: folder, zip64: zip64)
        let archive = try SZIArchive(path: folder.file("a.szi"))
        #expect(archive.descriptor == Self.descriptor)
        #expect(archive.topFolder == "p" && archive.stem == "p")
        #expect(archive.tileCount == entries.count - 1)
        let pyramid = Self.descriptor.pyramid
        for (level, column, row) in pyramid.tiles {
            let place = try #require(archive.tile(level: level, column: column, row: row))
            #expect(Array(bytes[Int(place.offset)..<Int(place.offset) + place.size]) == Array("\(level)-\(column)-\(row)".utf8))
        }
        #expect(archive.tile(level: pyramid.maxLevel, column: 3, row: 0) == nil)
        #expect(archive.tile(level: pyramid.maxLevel + 1, column: 0, row: 0) == nil)
    }

    @Test func readsWhatVipsDzsaveWrites() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        let made = try ExternalTool.run("/usr/bin/vips", ["black", folder.file("x.v"), "700", "300", "--bands", "3"])
        #expect(made.status == 0, "\(made.errors)")
        let saved = try ExternalTool.run("/usr/bin/vips", ["dzsave", folder.file("x.v"), folder.file("out.szi")])
        #expect(saved.status == 0, "\(saved.errors)")
        let archive = try SZIArchive(path: folder.file("out.szi"))
        #expect(archive.stem == "out" && archive.descriptor.width == 700 && archive.descriptor.height == 300)
        let pyramid = archive.descriptor.pyramid
        #expect(archive.tileCount == (0...pyramid.maxLevel).reduce(0) { $0 + pyramid.grid($1).columns * pyramid.grid($1).rows })
        #expect(archive.otherEntries >= 1, "vips-properties.xml is ignored, not refused")
        let place = try #require(archive.tile(level: pyramid.maxLevel, column: 2, row: 1))
        let bytes = try ZIPDirectory.read(open(folder.file("out.szi"), O_RDONLY), at: place.offset, count: 2, label: "")
        #expect(bytes == [0xFF, 0xD8], "a tile starts with a JPEG SOI")
    }

    @Test func truncatedArchivesAreRefused() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        let bytes = try Self.archive(Self.entries(), in: folder)
        for cut in [0, 10, bytes.count / 2, bytes.count - 30, bytes.count - 1] {
            try Self.expectRefused(Array(bytes[..<cut]), cut < 22 ? "too short" : "no end of central directory record", in: folder)
        }
    }

    @Test func centralDirectoryPastTheEndIsRefused() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        var bytes = try Self.archive(Self.entries(), in: folder)
        let end = Self.lastRecord(Self.endSignature, in: bytes)
        Self.patch(&bytes, at: end + 16, UInt32(bytes.count - 10))
        try Self.expectRefused(bytes, "reaches past the end records", in: folder)
    }

    @Test func compressedEntryIsRefused() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        var bytes = try Self.archive(Self.entries(), in: folder)
        let central = Self.lastRecord(Self.centralSignature, in: bytes)
        Self.patch(&bytes, at: central + 10, UInt16(8))
        try Self.expectRefused(bytes, "is compressed (method 8)", in: folder)
    }

    @Test func compressedEntryFromPythonIsRefused() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("p/p.dzi", sys.argv[2])
                z.writestr("p/p_files/0/0_0.jpg", b"x" * 1000)
            """
        let made = try ExternalTool.run("/usr/bin/python3", ["-c", script, folder.file("deflated.szi"), Self.descriptor.xml])
        #expect(made.status == 0, "\(made.errors)")
        #expect(throws: ArchiveError.self) { try SZIArchive(path: folder.file("deflated.szi")) }
    }

    @Test(arguments: ["p/../p_files/0/0_0.jpg", "p/p_files/../../etc/0_0.jpg", "/p/p_files/0/0_0.jpg", "p/p_files/0/..", "p//p_files/0/0_0.jpg"])
    func namesThatLeaveTheFolderAreRefused(name: String) throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        let bytes = try Self.archive(Self.entries() + [(name, [1])], in: folder)
        try Self.expectRefused(bytes, "entry name", in: folder)
    }

    @Test func duplicateNamesAreRefused() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        let bytes = try Self.archive(Self.entries() + [("p/p_files/1/0_0.jpg", [9, 9])], in: folder)
        try Self.expectRefused(bytes, "two entries are named p/p_files/1/0_0.jpg", in: folder)
    }

    @Test func zip64RecordsLyingAboutSizesAreRefused() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        let good = try Self.archive(Self.entries(), in: folder, zip64: true)
        // The last entry's ZIP64 offset pointing past the central directory.
        var bytes = good
        let central = Self.lastRecord(Self.centralSignature, in: bytes)
        let nameLength = Int(bytes[central + 28]) | Int(bytes[central + 29]) << 8
        Self.patch(&bytes, at: central + 46 + nameLength + 4, UInt64(1) << 40)
        try Self.expectRefused(bytes, "reaches past the start of the central directory", in: folder)
        // A size of 2^32 − 1 in the short field with no ZIP64 field for it.
        bytes = good
        Self.patch(&bytes, at: central + 24, UInt32.max)
        try Self.expectRefused(bytes, "ZIP64 field too short", in: folder)
        // The ZIP64 end record claiming a central directory larger than the file.
        bytes = good
        let record = Self.lastRecord([0x50, 0x4b, 0x06, 0x06], in: bytes)
        Self.patch(&bytes, at: record + 40, UInt64(bytes.count) * 4)
        try Self.expectRefused(bytes, "reaches past the end records", in: folder)
        // The ZIP64 end record claiming more entries than its directory can hold.
        bytes = good
        Self.patch(&bytes, at: record + 24, UInt64(1) << 33)
        Self.patch(&bytes, at: record + 32, UInt64(1) << 33)
        try Self.expectRefused(bytes, "cannot fit", in: folder)
    }

    @Test func localHeaderThatDisagreesIsRefused() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        var bytes = try Self.archive(Self.entries(), in: folder)
        bytes[30] = UInt8(ascii: "q")  // the first entry's name in its local header
        try Self.expectRefused(bytes, "does not match the central directory", in: folder)
        // Sizes the local header gives (unless a data descriptor follows): the same as the central directory's.
        var sizes = try Self.archive(Self.entries(), in: folder, name: "b.szi")
        Self.patch(&sizes, at: 18, UInt32(100_000_000))
        Self.patch(&sizes, at: 22, UInt32(100_000_000))
        try Self.expectRefused(sizes, "other sizes than the central directory", in: folder)
    }

    /// The descriptor, which anyone who drops an SZI in ROOT writes, sets how large the grid is: one of 2³¹ pixels a
    /// side over a handful of tiles is indexed by its tiles (sparsely), not by its cells, and reads as the dense one.
    @Test func aHugeDeclaredGridIsIndexedByItsTiles() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        let huge = DZIDescriptor(width: 2_147_483_647, height: 2_147_483_647, tileSize: 256, overlap: 0, format: "jpg")
        var entries = Self.entries().dropLast().map { $0 }
        entries.append(("p/p.dzi", Array(huge.xml.utf8)))
        let bytes = try Self.archive(entries, in: folder)
        let archive = try SZIArchive(path: folder.file("a.szi"))
        #expect(archive.descriptor == huge && archive.tileCount == entries.count - 1)
        for (level, column, row) in Self.descriptor.pyramid.tiles {
            let place = try #require(archive.tile(level: level, column: column, row: row))
            #expect(Array(bytes[Int(place.offset)..<Int(place.offset) + place.size]) == Array("\(level)-\(column)-\(row)".utf8))
        }
        #expect(archive.tile(level: 31, column: 8_388_607, row: 8_388_607) == nil)
        #expect(archive.tile(level: 3, column: 0, row: 1) == nil)
        let twice = try Self.archive(entries + [("p/p_files/0/0_0.jpg", [1])], in: folder, name: "twice.szi")
        try Self.expectRefused(twice, "two entries are named", in: folder)
    }

    @Test func archiveShapesThatAreNotAnSZIAreRefused() throws {
        let folder = try TemporaryDirectory(prefix: "szi")
        let twoTops = try Self.archive(Self.entries() + [("q/q.dzi", [1])], in: folder, name: "1.szi")
        try Self.expectRefused(twoTops, "more than one top folder", in: folder)
        try Self.expectRefused(try Self.archive(Array(Self.entries().dropLast()), in: folder, name: "2.szi"), "no .dzi descriptors", in: folder)
        let twoDescriptors = try Self.archive(Self.entries() + [("p/other.dzi", Array(Self.descriptor.xml.utf8))], in: folder, name: "3.szi")
        try Self.expectRefused(twoDescriptors, "2 .dzi descriptors", in: folder)
        let outside = try Self.archive(Self.entries() + [("p/p_files/9/7_0.jpg", [1])], in: folder, name: "4.szi")
        try Self.expectRefused(outside, "lies outside the pyramid", in: folder)
        try Self.expectRefused([UInt8](repeating: 0x50, count: 5000), "no end of central directory record", in: folder)
        // A descriptor that names none of the tiles (another format): every tile would be 404, so it is refused.
        let png = DZIDescriptor(width: 600, height: 400, tileSize: 256, overlap: 0, format: "png")
        let otherFormat = try Self.archive(Array(Self.entries().dropLast()) + [("p/p.dzi", Array(png.xml.utf8))], in: folder, name: "6.szi")
        try Self.expectRefused(otherFormat, "no tile named as its descriptor says", in: folder)
        // A name that is not a canonical tile name is not a tile: ignored, never served in another tile's place.
        _ = try Self.archive(Self.entries() + [("p/p_files/1/00_0.jpg", [1])], in: folder, name: "5.szi")
        let archive = try SZIArchive(path: folder.file("5.szi"))
        #expect(archive.otherEntries == 1 && archive.tileCount == Self.entries().count - 1)
    }
}
