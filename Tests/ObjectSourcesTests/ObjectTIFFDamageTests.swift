import Archive
import Foundation
import ImageCodecs
import NIOCore
import ObjectSources
import ObjectStore
import ObjectStoreTestSupport
import TestSupport
import Testing

/// Hostile and damaged TIFFs in a real S3, contained as on disk: a truncated header, directories past the object's
/// end, a directory loop, tile offsets past the end and lying byte counts are each one clear error — the open's, or
/// that tile's — never a crash, a hang or bytes from elsewhere; and an object replaced after it was opened fails its
/// next read (412) instead of mixing two versions.
@Suite struct ObjectTIFFDamageTests {
    /// A small tiler-sliced TIFF (classic, little-endian, every directory first) as bytes.
    private func goodTIFF(in folder: TemporaryDirectory) throws -> [UInt8] {
        _ = try TIFFFixtures.sliced(width: 900, height: 600, in: folder, name: "good")
        return try folder.read("good.tif")
    }

    /// Opens `bytes` uploaded as `key`, expecting one error line naming the object and containing `words`.
    private func expectRefused(_ bytes: [UInt8], as key: String, in client: S3Client, saying words: String) async throws {
        let info = try await ObjectTIFFPyramidTests.upload(bytes, as: key, to: client)
        let reader = CountingReader(client)
        do {
            let opened = try await ObjectTIFFPyramid(source: ObjectByteSource(reader: reader, info: info))
            Issue.record("\(key) opened with \(opened.pyramid.levels.count) levels; expected \"\(words)\"")
        } catch {
            #expect(error.message.hasPrefix("\(client.name)\(key): ") && error.message.contains(words), "\(error.message)")
            #expect(!error.message.contains("\n") && error.underlying is TIFFPyramidError, "\(error.message)")
            #expect(reader.gets <= 3, "\(key): \(reader.ranges)")
        }
    }

    @Test func damagedDirectoriesAreRefusedWithOneLine() async throws {
        let folder = try TemporaryDirectory(prefix: "object-tiff")
        let good = ClassicTIFF(try goodTIFF(in: folder))
        var pastEnd = good
        pastEnd.firstDirectory = good.bytes.count + 4096
        var looping = good
        looping.setUInt32(UInt32(good.firstDirectory), at: good.nextLinkOffset)
        let client = try await TestGateway.shared().makeBucket("tiff-damaged")
        defer { Task { try await client.shutdown() } }
        let cases: [(String, [UInt8], String)] = [
            ("tiny.tif", Array(good.bytes.prefix(5)), "truncated TIFF header (5 bytes)"),
            ("past-end.tif", pastEnd.bytes, "Can not read TIFF directory count"),
            ("cut.tif", Array(good.bytes.prefix(good.firstDirectory + 6)), "Can not read TIFF directory"),
            ("loop.tif", looping.bytes, "IFD looping to directory 0"),
            ("text.tif", Array("not a TIFF at all".utf8), "not a TIFF file"),
        ]
        for (key, bytes, words) in cases {
            try await expectRefused(bytes, as: key, in: client, saying: words)
        }
    }

    /// An index entry past the object's end, or a byte count that lies, fails that tile alone — before any read when
    /// the index says so, after its one read when the bytes do — and the other tiles still read.
    @Test func aLyingTileIndexFailsThatTileAlone() async throws {
        let folder = try TemporaryDirectory(prefix: "object-tiff")
        var tiff = ClassicTIFF(try goodTIFF(in: folder))
        let offsets = try #require(tiff.longValues(of: 324))
        let counts = try #require(tiff.longValues(of: 325))
        #expect(offsets.count == 12 && counts.count == 12, "4 × 3 tiles of 256 in level 0")
        tiff.setUInt32(UInt32(tiff.bytes.count + 100), at: offsets.offset)  // tile 0: past the end
        tiff.setUInt32(tiff.uint32(at: counts.offset + 4) + 300, at: counts.offset + 4)  // tile 1: 300 bytes too many
        tiff.setUInt32(1 << 30, at: counts.offset + 8)  // tile 2: a gigabyte, past the end
        let client = try await TestGateway.shared().makeBucket("tiff-index")
        defer { Task { try await client.shutdown() } }
        let info = try await ObjectTIFFPyramidTests.upload(tiff.bytes, as: "index.tif", to: client)
        let reader = CountingReader(client)
        let remote = try await ObjectTIFFPyramid(source: ObjectByteSource(reader: reader, info: info))
        let loop = reader.eventLoopGroup.any()
        let expectations = [
            (0, "lies past the end of the file", 0), (1, "does not end with an EOI marker", 1), (2, "lies past the end of the file", 0),
        ]
        for (column, words, reads) in expectations {
            let before = reader.gets
            do {
                let bytes = try await remote.jpegTile(level: 0, column: column, row: 0, maxBytes: 1 << 22, on: loop).get()
                Issue.record("tile \(column) was read (\(bytes.count) bytes); expected \"\(words)\"")
            } catch let error as TIFFPyramidError {
                #expect(error.description.hasPrefix("\(client.name)index.tif: ") && error.reason.contains(words), "\(error)")
            }
            #expect(reader.gets == before + reads, "tile \(column)")
        }
        let third = try await remote.jpegTile(level: 0, column: 3, row: 0, maxBytes: 1 << 22, on: loop).get()
        #expect(third.starts(with: [0xFF, 0xD8]) && third.suffix(2) == [0xFF, 0xD9])
        // A stored tile over the caller's limit is refused without a read.
        let before = reader.gets
        await #expect(throws: TIFFPyramidError.self) { try await remote.storedTile(level: 0, column: 3, row: 0, maxBytes: 10, on: loop).get() }
        #expect(reader.gets == before)
    }

    @Test func aReplacedObjectFailsTheNextTileReadRatherThanMixVersions() async throws {
        let folder = try TemporaryDirectory(prefix: "object-tiff")
        let first = try goodTIFF(in: folder)
        let client = try await TestGateway.shared().makeBucket("tiff-replaced")
        defer { Task { try await client.shutdown() } }
        let info = try await ObjectTIFFPyramidTests.upload(first, as: "a.tif", to: client)
        let reader = CountingReader(client)
        let remote = try await ObjectTIFFPyramid(source: ObjectByteSource(reader: reader, info: info))
        let loop = reader.eventLoopGroup.any()
        _ = try await remote.jpegTile(level: 0, column: 1, row: 1, maxBytes: 1 << 22, on: loop).get()
        let other = try TemporaryDirectory(prefix: "object-tiff")
        _ = try TIFFFixtures.sliced(width: 900, height: 600, tileSize: 128, in: other, name: "b")
        let replacement = try other.read("b.tif")
        let replaced = try await ObjectTIFFPyramidTests.upload(replacement, as: "a.tif", to: client)
        #expect(replaced.etag != info.etag)
        do {
            let bytes = try await remote.jpegTile(level: 0, column: 1, row: 1, maxBytes: 1 << 22, on: loop).get()
            Issue.record("a tile of a replaced object was read (\(bytes.count) bytes)")
        } catch let error as ArchiveError {
            let cause = error.underlying as? ObjectStoreError
            #expect(cause?.kind == .changed && cause?.status == 412, "\(error.message)")
            #expect(error.message.contains("a.tif: the object was replaced after it was opened"), "\(error.message)")
        }
        let reopened = try await ObjectTIFFPyramid(source: ObjectByteSource(reader: client, info: try await client.info("a.tif")))
        #expect(reopened.pyramid.levels.first?.tileWidth == 128)
    }
}
