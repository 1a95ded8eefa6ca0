import Foundation
import TestSupport
import Testing
import TileGeometry

@testable import Archive

/// ``ZIPDirectory/LocalHeaders/derive``: data offsets worked out from the central directory alone equal those the
/// local headers give, for every writer an SZI comes from; what cannot be derived is refused, and what was derived
/// wrongly is caught by the read of the entry.
@Suite struct DerivedDataOffsetsTests {
    /// The archives of five writers: Tiler's (plain, ZIP64 throughout), libvips' dzsave (data descriptors, a 29-byte
    /// local extra field), Python's zipfile writing to a pipe (data descriptors with their signature) and Info-ZIP's
    /// `zip -fd` (data descriptors, local extra fields 4 bytes longer than the central ones).
    enum Writer: String, CaseIterable, CustomTestStringConvertible {
        case tiler, tilerZIP64, vips, pythonStream, infoZIP
        var testDescription: String { rawValue }

        /// Writes the archive in `folder` and gives its path.
        func archive(in folder: TemporaryDirectory) throws -> String {
            switch self {
            case .tiler, .tilerZIP64:
                _ = try SZIArchiveTests.archive(SZIArchiveTests.entries(), in: folder, zip64: self == .tilerZIP64)
                return folder.file("a.szi")
            case .vips:
                let made = try ExternalTool.run("/usr/bin/vips", ["black", folder.file("x.v"), "900", "600", "--bands", "3"])
                let saved = try ExternalTool.run("/usr/bin/vips", ["dzsave", folder.file("x.v"), folder.file("out.szi")])
                #expect(made.status == 0 && saved.status == 0, "\(made.errors) \(saved.errors)")
                return folder.file("out.szi")
            case .pythonStream:
                let script = """
                    import sys, zipfile
                    class Pipe:
                        def __init__(self, f): self.f = f
                        def write(self, b): return self.f.write(b)
                        def flush(self): self.f.flush()
                    with open(sys.argv[1], "wb") as f, zipfile.ZipFile(Pipe(f), "w", zipfile.ZIP_STORED) as z:
                        for name, text in zip(sys.argv[2::2], sys.argv[3::2]):
                            with z.open(name, "w") as entry: entry.write(text.encode())
                    """
                let arguments = SZIArchiveTests.entries().flatMap { [$0.name, String(decoding: $0.bytes, as: UTF8.self)] }
                let made = try ExternalTool.run("/usr/bin/python3", ["-c", script, folder.file("py.szi")] + arguments)
                #expect(made.status == 0, "\(made.errors)")
                return folder.file("py.szi")
            case .infoZIP:
                return try DerivedDataOffsetsTests.infoZIP(in: folder)
            }
        }
    }

    /// `zip -0 -fd` (Info-ZIP, stored, forced data descriptors) of ``SZIArchiveTests/entries(top:)``, in their order
    /// but the last tile written last, the first and last tiles' bytes padded to `paddedTileBytes`.
    static func infoZIP(in folder: TemporaryDirectory, paddedTileBytes: Int = 0) throws -> String {
        let entries = SZIArchiveTests.entries()
        let lastTile = entries.lastIndex { $0.name.hasSuffix(".jpg") }!
        for (index, entry) in entries.enumerated() {
            let path = folder.file("src/\(entry.name)")
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let padded = index == 0 || index == lastTile
            let bytes = padded ? entry.bytes + [UInt8](repeating: 0x2E, count: max(0, paddedTileBytes - entry.bytes.count)) : entry.bytes
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
        var order = entries.map(\.name)
        order.append(order.remove(at: lastTile))
        let zipped = try ExternalTool.run("/bin/sh", ["-c", "cd \"$0\" && zip -q -0 -fd ../info.szi \"$@\"", folder.file("src")] + order)
        #expect(zipped.status == 0, "\(zipped.errors)")
        return folder.file("info.szi")
    }

    @Test(arguments: Writer.allCases) func derivedOffsetsEqualTheLocalHeaders(writer: Writer) throws {
        let folder = try TemporaryDirectory(prefix: "derive")
        let path = try writer.archive(in: folder)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let file = try FileByteSource(fd: fd, label: path)
        let read = try ZIPDirectory(source: file, label: path, localHeaders: .readEach)
        let derived = try ZIPDirectory(source: file, label: path, localHeaders: .derive)
        #expect(derived.dataOffsets == read.dataOffsets && derived.sizes == read.sizes && derived.count > 10)
        let local = try SZIArchive(fd: fd, label: path)
        let remote = try SZIArchive(source: file, label: path, localHeaders: .derive)
        #expect(remote.descriptorBytes == local.descriptorBytes && remote.propertiesXML == local.propertiesXML)
        for (level, column, row) in local.descriptor.pyramid.tiles {
            let place = try #require(local.tile(level: level, column: column, row: row))
            #expect(remote.tileRecord(level: level, column: column, row: row)! == local.tileRecord(level: level, column: column, row: row)!)
            let bytes = try remote.readTile(level: level, column: column, row: row, from: file)
            #expect(bytes == (try ZIPDirectory.read(fd, at: place.offset, count: place.size, label: path)))
        }
    }

    /// Bytes between entries that no header accounts for: too many to be an extra field is refused when opened;
    /// a few are taken for one, and the entry's read finds its header says otherwise — the file path, which reads
    /// every header, serves it.
    @Test func gapsBetweenEntriesAreRefusedOrCaughtWhenRead() throws {
        let folder = try TemporaryDirectory(prefix: "derive")
        let good = try SZIArchiveTests.archive(SZIArchiveTests.entries(), in: folder)
        let wide = try folder.write(Self.insertingGap(of: 70_000, afterFirstEntryOf: good), to: "wide.szi")
        let fd = open(wide, O_RDONLY)
        defer { close(fd) }
        do {
            _ = try SZIArchive(source: FileByteSource(fd: fd, label: wide), label: wide, localHeaders: .derive)
            Issue.record("an archive with 70,000 unexplained bytes after an entry opened")
        } catch {
            #expect(error.message.contains("cannot be derived from the central directory (70000 bytes after it)"), "\(error.message)")
        }
        let narrow = try folder.write(Self.insertingGap(of: 10, afterFirstEntryOf: good), to: "narrow.szi")
        let narrowFD = open(narrow, O_RDONLY)
        defer { close(narrowFD) }
        let source = try FileByteSource(fd: narrowFD, label: narrow)
        let derived = try SZIArchive(source: source, label: narrow, localHeaders: .derive)
        let read = try SZIArchive(source: source, label: narrow)
        let (level, column, row) = Array(SZIArchiveTests.descriptor.pyramid.tiles)[0]
        #expect(try read.readTile(level: level, column: column, row: row, from: source) == Array("\(level)-\(column)-\(row)".utf8))
        do {
            let bytes = try derived.readTile(level: level, column: column, row: row, from: source)
            Issue.record("a tile after a gap was read from a derived offset (\(bytes ?? []))")
        } catch {
            #expect(error.message.hasSuffix("does not match the central directory (an extra field of 0 bytes, not 10)"), "\(error.message)")
        }
    }

    @Test func fetchedBytesServeWhatWasFetchedAndRememberTheRest() throws {
        let fetched = FetchedBytes(size: 100, label: "x.szi")
        fetched.add(Array(10..<20), at: 10)
        fetched.add(Array(30..<40), at: 30)
        #expect(try fetched.read(at: 12, count: 3) == [12, 13, 14] && fetched.takeMissing() == nil)
        #expect(throws: ArchiveError.self) { try fetched.read(at: 15, count: 20) }
        #expect(fetched.takeMissing() == 15..<35 && fetched.takeMissing() == nil)
        #expect(fetched.rangeToFetch(for: 15..<35, lead: 8) == 7..<30, "up to where fetched bytes take over")
        fetched.add(Array(20..<30), at: 20)
        #expect(try fetched.read(at: 15, count: 20) == Array(15..<35) && fetched.holds(10..<40) && !fetched.holds(9..<40))
        do {
            _ = try fetched.read(at: 95, count: 10)
            Issue.record("a read past the end was served")
        } catch {
            #expect(error.message == "x.szi: the file ends inside a record at byte 100" && fetched.takeMissing() == nil)
        }
    }

    /// The remote open over an in-memory source that counts reads: one for an archive the tail holds, two for a
    /// central directory larger than the tail, whatever the tail length asked for.
    @Test(arguments: [1, 1 << 16, 1 << 20]) func aRemoteOpenReadsTheTailOnce(tailBytes: Int) async throws {
        let folder = try TemporaryDirectory(prefix: "derive")
        let small = MemorySource(try SZIArchiveTests.archive(SZIArchiveTests.entries(), in: folder))
        let archive = try await SZIArchive(source: small, label: "small.szi", tailBytes: tailBytes)
        #expect(small.reads == [0..<UInt64(small.bytes.count)] && archive.localHeaders == .derive)
        let (level, column, row) = Array(SZIArchiveTests.descriptor.pyramid.tiles).last!
        #expect(try await archive.readTile(level: level, column: column, row: row, from: small) == Array("\(level)-\(column)-\(row)".utf8))
        #expect(small.reads.count == 2)

        let many = DZIDescriptor(width: 10_000, height: 10_000, tileSize: 254, overlap: 1, format: "jpg")
        var entries = many.pyramid.tiles.map { ("p/p_files/\($0.level)/\($0.column)_\($0.row).jpg", [UInt8]("\($0.level)".utf8)) }
        entries.append(("p/p.dzi", Array(many.xml.utf8)))
        let large = MemorySource(try SZIArchiveTests.archive(entries, in: folder, name: "many.szi"))
        let opened = try await SZIArchive(source: large, label: "many.szi", tailBytes: tailBytes)
        #expect(opened.tileCount == entries.count - 1)
        #expect(large.reads.count == (tailBytes >= large.bytes.count ? 1 : 2), "\(large.reads)")
    }

    /// Info-ZIP's layout opened remotely when the tail holds no local header (the last entry is larger than the tail):
    /// one header is read to learn the data descriptors' length — one read more — and every tile then reads right, the
    /// first one too, whose header that read does not reach (the first tile is as large).
    @Test func aDescriptorLengthNoHeaderAtHandShowsIsLearnedWithOneRead() async throws {
        let folder = try TemporaryDirectory(prefix: "derive")
        let path = try Self.infoZIP(in: folder, paddedTileBytes: 100_000)
        let source = MemorySource(try folder.read("info.szi"))
        let remote = try await SZIArchive(source: source, label: "info.szi")
        #expect(source.reads.count == 2, "the tail, then one local header: \(source.reads)")
        let local = try SZIArchive(path: path)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        for (level, column, row) in local.descriptor.pyramid.tiles {
            let place = try #require(local.tile(level: level, column: column, row: row))
            let bytes = try await remote.readTile(level: level, column: column, row: row, from: source)
            #expect(bytes == (try ZIPDirectory.read(fd, at: place.offset, count: place.size, label: path)), "tile \(level)/\(column)_\(row)")
        }
    }

    /// `bytes` with `count` zero bytes inserted after the first entry, every offset after it moved along.
    static func insertingGap(of count: Int, afterFirstEntryOf bytes: [UInt8]) -> [UInt8] {
        var bytes = bytes
        let end = bytes.count - 22
        let read32 = { (bytes: [UInt8], at: Int) in (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        let directory = read32(bytes, end + 16)
        let firstEnd = 30 + read32(bytes, 26) & 0xFFFF + read32(bytes, 28) & 0xFFFF + read32(bytes, 18)
        var at = directory
        while at < end {
            let offset = read32(bytes, at + 42)
            if offset >= firstEnd { SZIArchiveTests.patch(&bytes, at: at + 42, UInt32(offset + count)) }
            at += 46 + read32(bytes, at + 28) & 0xFFFF + read32(bytes, at + 30) & 0xFFFF + read32(bytes, at + 32) & 0xFFFF
        }
        SZIArchiveTests.patch(&bytes, at: end + 16, UInt32(directory + count))
        bytes.insert(contentsOf: [UInt8](repeating: 0, count: count), at: firstEnd)
        return bytes
    }
}
