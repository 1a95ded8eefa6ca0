import Archive
import Foundation
import NIOCore
import ObjectSources
import ObjectStore
import ObjectStoreTestSupport
import TestSupport
import Testing
import TileGeometry

/// SZIs in a real S3 (a Ceph RADOS Gateway, ``TestGateway``), opened with as few ranged GETs as their layout allows and
/// read back tile by tile: the same index and bytes as the file, one GET a tile, and a clear error — never other bytes —
/// when the object is damaged or replaced.
@Suite struct ObjectSZIArchiveTests {
    /// Uploads the file at `path` as `key` and gives the object's description.
    private func upload(_ path: String, as key: String, to client: S3Client) async throws -> ObjectInfo {
        try await upload([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), as: key, to: client)
    }

    private func upload(_ bytes: [UInt8], as key: String, to client: S3Client) async throws -> ObjectInfo {
        try await client.put(key, body: ByteBuffer(bytes: bytes), contentType: "application/zip")
        return try await client.info(key)
    }

    /// The remote index equals the file's in every field and every tile's place (local header included), and each
    /// tile read through the store takes one GET and gives the file's bytes.
    private func expectSameAsFile(_ remote: ObjectSZIArchive, reader: CountingReader, path: String) async throws {
        let local = try SZIArchive(path: path)
        let index = remote.index
        #expect(index.localHeaders == .derive && local.localHeaders == .readEach)
        #expect(index.fileSize == local.fileSize && index.topFolder == local.topFolder && index.stem == local.stem)
        #expect(index.descriptor == local.descriptor && index.descriptorBytes == local.descriptorBytes)
        #expect(index.tileCount == local.tileCount && index.otherEntries == local.otherEntries)
        #expect(index.propertiesXML == local.propertiesXML && index.scanPropertiesXML == local.scanPropertiesXML)
        #expect(index.associated.mapValues { [$0.offset, UInt64($0.size)] } == local.associated.mapValues { [$0.offset, UInt64($0.size)] })
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let pyramid = local.descriptor.pyramid
        var compared = 0
        for (level, column, row) in pyramid.tiles {
            let place = local.tile(level: level, column: column, row: row)
            #expect(index.tile(level: level, column: column, row: row)?.offset == place?.offset)
            #expect(index.tile(level: level, column: column, row: row)?.size == place?.size)
            #expect(
                index.tileRecord(level: level, column: column, row: row)?.headerOffset
                    == local.tileRecord(level: level, column: column, row: row)?.headerOffset)
            let before = reader.gets
            let bytes = try await remote.tile(level: level, column: column, row: row)
            guard let place else {
                #expect(bytes == nil && reader.gets == before, "tile \(level)/\(column)_\(row) is absent: no GET")
                continue
            }
            #expect(reader.gets == before + 1, "one GET per tile")
            let stored = try ZIPDirectory.read(fd, at: place.offset, count: place.size, label: path)
            #expect(bytes == stored, "tile \(level)/\(column)_\(row)")
            compared += 1
        }
        #expect(compared == local.tileCount && compared > 0)
    }

    /// Opens `key` of `client` through a counting reader.
    private func openRemote(_ key: String, info: ObjectInfo, of client: S3Client, tailBytes: Int = SZIArchive.defaultTailBytes) async throws -> (
        ObjectSZIArchive, CountingReader
    ) {
        let reader = CountingReader(client)
        return (try await ObjectSZIArchive(source: ObjectByteSource(reader: reader, info: info), tailBytes: tailBytes), reader)
    }

    @Test func aSlicedPyramidOpensWithOneGETAndReadsAsTheFile() async throws {
        let folder = try TemporaryDirectory(prefix: "object-szi")
        let path = try SZIFixtures.sliced(width: 2000, height: 1500, in: folder, name: "scan")
        let client = try await TestGateway.shared().makeBucket("szi-sliced", prefix: "slides/")
        defer { Task { try await client.shutdown() } }
        let info = try await upload(path, as: "2026/scan one.szi", to: client)
        #expect(info.size > 4 * SZIArchive.defaultTailBytes, "the object is larger than the tail read")
        let (remote, reader) = try await openRemote("2026/scan one.szi", info: info, of: client)
        #expect(reader.gets == 1, "the tail holds the central directory, the descriptor and the properties: \(reader.ranges)")
        #expect(reader.ranges.first == info.size - (22 + 65_535)..<info.size)
        #expect(remote.index.propertiesXML != nil && remote.index.scanPropertiesXML != nil)
        #expect(remote.source.label.hasSuffix("/slides/2026/scan one.szi") && remote.source.label.hasPrefix("s3://"))
        try await expectSameAsFile(remote, reader: reader, path: path)
    }

    @Test func aZIP64PyramidOpensAndReadsAsTheFile() async throws {
        let folder = try TemporaryDirectory(prefix: "object-szi")
        let path = try SZIFixtures.sliced(width: 1600, height: 1100, seed: 2, zip64: true, in: folder, name: "big")
        let bytes = try folder.read("big.szi")
        #expect(bytes.count > SZIArchive.defaultTailBytes)
        #expect((0...(bytes.count - 4)).contains { bytes[$0..<$0 + 4].elementsEqual([0x50, 0x4b, 0x06, 0x06]) }, "a ZIP64 end record")
        let client = try await TestGateway.shared().makeBucket("szi-zip64")
        defer { Task { try await client.shutdown() } }
        let info = try await upload(bytes, as: "big.szi", to: client)
        let (remote, reader) = try await openRemote("big.szi", info: info, of: client)
        #expect(reader.gets == 1, "\(reader.ranges)")
        try await expectSameAsFile(remote, reader: reader, path: path)
    }

    /// libvips writes a data descriptor after each entry and a local extra field the central directory does not measure:
    /// the offsets are derived from the headers in the tail, and every tile read checks its own.
    @Test func vipsArchivesWithDataDescriptorsReadAsTheFile() async throws {
        let folder = try TemporaryDirectory(prefix: "object-szi")
        let path = try SZIFixtures.vips(width: 1800, height: 1200, in: folder, name: "vipsout")
        let client = try await TestGateway.shared().makeBucket("szi-vips")
        defer { Task { try await client.shutdown() } }
        let info = try await upload(path, as: "vipsout.szi", to: client)
        #expect(info.size > SZIArchive.defaultTailBytes)
        let (remote, reader) = try await openRemote("vipsout.szi", info: info, of: client)
        #expect(reader.gets == 1, "\(reader.ranges)")
        #expect(remote.index.descriptor.format == "jpeg" && remote.index.propertiesXML != nil)
        try await expectSameAsFile(remote, reader: reader, path: path)
    }

    /// A central directory larger than the tail: one more GET, which starts 64 KiB before the directory and so brings
    /// the descriptor written just before it. A descriptor written first costs a third.
    @Test(arguments: [false, true]) func aCentralDirectoryLargerThanTheTailTakesTwoGETs(descriptorFirst: Bool) async throws {
        let folder = try TemporaryDirectory(prefix: "object-szi")
        let descriptor = DZIDescriptor(width: 10_000, height: 10_000, tileSize: 254, overlap: 1, format: "jpg")
        let path = try SZIFixtures.written(descriptor, descriptorFirst: descriptorFirst, in: folder, name: "many")
        let client = try await TestGateway.shared().makeBucket("szi-many")
        defer { Task { try await client.shutdown() } }
        let info = try await upload(path, as: "many.szi", to: client)
        let (remote, reader) = try await openRemote("many.szi", info: info, of: client)
        let local = try SZIArchive(path: path)
        #expect(local.tileCount > 2000, "a central directory of about 140 KB")
        #expect(reader.gets == (descriptorFirst ? 3 : 2), "\(reader.ranges)")
        try await expectSameAsFile(remote, reader: reader, path: path)
    }

    @Test func damagedAndTruncatedObjectsAreRefusedWithOneLine() async throws {
        let folder = try TemporaryDirectory(prefix: "object-szi")
        _ = try SZIFixtures.sliced(width: 900, height: 700, in: folder, name: "d")
        let good = try folder.read("d.szi")
        let directoryOffset =
            Int(good[good.count - 6]) | Int(good[good.count - 5]) << 8 | Int(good[good.count - 4]) << 16 | Int(good[good.count - 3]) << 24
        var damaged = good
        damaged[directoryOffset] = 0x51
        let client = try await TestGateway.shared().makeBucket("szi-damaged")
        defer { Task { try await client.shutdown() } }
        let cases: [(String, [UInt8], String)] = [
            ("truncated.szi", Array(good[..<(good.count / 2)]), "no end of central directory record (truncated, or not a one-disk ZIP archive)"),
            ("cut-end.szi", Array(good.dropLast(1)), "no end of central directory record"),
            ("tiny.szi", Array(good.prefix(10)), "too short to be a ZIP archive (10 bytes)"),
            ("damaged.szi", damaged, "central directory entry 1 is damaged"),
        ]
        for (key, bytes, words) in cases {
            let info = try await upload(bytes, as: key, to: client)
            do {
                _ = try await openRemote(key, info: info, of: client)
                Issue.record("\(key) opened; expected \"\(words)\"")
            } catch let error as ArchiveError {
                #expect(error.message.hasPrefix("\(client.name)\(key): ") && error.message.contains(words), "\(error.message)")
                #expect(!error.message.contains("\n") && error.underlying == nil, "\(error.message)")
            }
        }
    }

    /// A tile's local header that disagrees with what was derived (another extra length, another name) fails that
    /// tile's read with one line; the other tiles still read.
    @Test func aTileWhoseLocalHeaderDisagreesFailsItsReadInsteadOfServingOtherBytes() async throws {
        let folder = try TemporaryDirectory(prefix: "object-szi")
        let path = try SZIFixtures.sliced(width: 2000, height: 1500, in: folder, name: "h")
        let local = try SZIArchive(path: path)
        let tiles = local.descriptor.pyramid.tiles.compactMap { tile in
            local.tileRecord(level: tile.level, column: tile.column, row: tile.row).map { (tile, $0.headerOffset) }
        }.sorted { $0.1 < $1.1 }
        let (first, second) = (tiles[0], tiles[1])
        var bytes = try folder.read("h.szi")
        bytes[Int(first.1) + 28] = 5  // the first tile's local extra length: 5 bytes, where 0 was written
        bytes[Int(second.1) + 30 + 2] ^= 0x20  // a letter of the second tile's name in its local header
        let client = try await TestGateway.shared().makeBucket("szi-header")
        defer { Task { try await client.shutdown() } }
        let info = try await upload(bytes, as: "h.szi", to: client)
        let (remote, _) = try await openRemote("h.szi", info: info, of: client)
        let expectations = [
            (first.0, "does not match the central directory (an extra field of 5 bytes, not 0)"), (second.0, "does not match the central directory"),
        ]
        for (tile, words) in expectations {
            do {
                let read = try await remote.tile(level: tile.level, column: tile.column, row: tile.row)
                Issue.record("tile \(tile) was read (\(read?.count ?? 0) bytes); expected \"\(words)\"")
            } catch {
                #expect(
                    error.message.contains("the local header of h/h_files/\(tile.level)/\(tile.column)_\(tile.row).jpg \(words)"), "\(error.message)")
            }
        }
        let third = tiles[2].0
        #expect(try await remote.tile(level: third.level, column: third.column, row: third.row)?.isEmpty == false)
    }

    @Test func aReplacedObjectFailsTheNextTileReadRatherThanMixVersions() async throws {
        let folder = try TemporaryDirectory(prefix: "object-szi")
        let first = try SZIFixtures.sliced(width: 1000, height: 800, seed: 3, in: folder, name: "a")
        let client = try await TestGateway.shared().makeBucket("szi-replaced")
        defer { Task { try await client.shutdown() } }
        let info = try await upload(first, as: "a.szi", to: client)
        let (remote, reader) = try await openRemote("a.szi", info: info, of: client)
        let top = remote.index.descriptor.pyramid.maxLevel
        let before = try #require(try await remote.tile(level: top, column: 1, row: 1))

        // The same pyramid sliced again from another picture: same names, same layout, other bytes.
        let second = try TemporaryDirectory(prefix: "object-szi")
        let replaced = try await upload(try SZIFixtures.sliced(width: 1000, height: 800, seed: 4, in: second, name: "a"), as: "a.szi", to: client)
        #expect(replaced.etag != info.etag)
        let gets = reader.gets
        do {
            let read = try await remote.tile(level: top, column: 1, row: 1)
            Issue.record("a tile of a replaced object was read (\(read?.count ?? 0) bytes)")
        } catch {
            let cause = error.underlying as? ObjectStoreError
            #expect(cause?.kind == .changed && cause?.status == 412, "\(error.message)")
            #expect(error.message.contains("a.szi: the object was replaced after it was opened") && !error.message.contains("\n"), "\(error.message)")
        }
        #expect(reader.gets == gets + 1)
        let reopened = try await ObjectSZIArchive.open("a.szi", in: client)
        let after = try #require(try await reopened.tile(level: top, column: 1, row: 1))
        #expect(after != before && reopened.source.info.etag == replaced.etag)
    }

    @Test func openingByKeyAsksForTheVersionOnceAndAMissingKeyIsNotFound() async throws {
        let folder = try TemporaryDirectory(prefix: "object-szi")
        let path = try SZIFixtures.sliced(width: 700, height: 500, in: folder, name: "k")
        let client = try await TestGateway.shared().makeBucket("szi-key")
        defer { Task { try await client.shutdown() } }
        _ = try await upload(path, as: "k.szi", to: client)
        let reader = CountingReader(client)
        let archive = try await ObjectSZIArchive.open("k.szi", in: reader)
        let local = try SZIArchive(path: path)
        #expect(reader.heads == 1 && reader.gets == 1 && archive.index.tileCount == local.tileCount)
        do {
            _ = try await ObjectSZIArchive.open("missing.szi", in: reader)
            Issue.record("a missing key opened")
        } catch {
            #expect((error.underlying as? ObjectStoreError)?.kind == .notFound, "\(error.message)")
            #expect(error.message.hasPrefix("\(client.name)missing.szi: cannot open"), "\(error.message)")
        }
    }
}
