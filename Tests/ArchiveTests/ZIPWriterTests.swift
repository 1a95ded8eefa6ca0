import Foundation
import TestSupport
import Testing

@testable import Archive

/// Archives ``ZIPWriter`` writes open in the tools others read them with, and read back through ``ZIPDirectory``.
@Suite struct ZIPWriterTests {
    /// Entries of random bytes (some empty), named like tiles.
    static func entries(count: Int, seed: UInt64 = 7) -> [(name: String, bytes: [UInt8])] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let size = index % 17 == 0 ? 0 : Int(random.next() % 3000)
            return ("top/top_files/\(index % 5)/\(index)_0.jpg", (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        }
    }

    /// Writes `entries` from four threads at once.
    static func write(_ entries: [(name: String, bytes: [UInt8])], to path: String, zip64Threshold: UInt64 = UInt64(UInt32.max)) throws -> UInt64 {
        let writer = try ZIPWriter(path: path, zip64Threshold: zip64Threshold)
        let failures = NSLock()
        nonisolated(unsafe) var failed: [String] = []
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            for index in stride(from: part, to: entries.count, by: 4) {
                do {
                    try entries[index].bytes.withUnsafeBytes { try writer.append(name: entries[index].name, bytes: $0) }
                } catch {
                    failures.withLock { failed.append("\(error)") }
                }
            }
        }
        #expect(failed.isEmpty)
        return try writer.finish()
    }

    /// Python's `zipfile` and Info-ZIP's `unzip -t` both accept the archive at `path`, and Python reads `entries` back.
    static func expectToolsAccept(_ path: String, _ entries: [(name: String, bytes: [UInt8])]) throws {
        let unzip = try ExternalTool.run("/usr/bin/unzip", ["-t", path])
        #expect(unzip.status == 0, "\(unzip.output) \(unzip.errors)")
        #expect(unzip.output.contains("No errors detected"))
        let script = """
            import sys, zipfile
            with zipfile.ZipFile(sys.argv[1]) as z:
                assert z.testzip() is None
                for info in z.infolist():
                    assert info.compress_type == zipfile.ZIP_STORED
                    print(info.filename, z.read(info).hex())
            """
        let python = try ExternalTool.run("/usr/bin/python3", ["-c", script, path])
        #expect(python.status == 0, "\(python.errors)")
        let expected = Set(entries.map { "\($0.name) \($0.bytes.map { String(format: "%02x", $0) }.joined())" })
        #expect(Set(python.output.split(separator: "\n").map(String.init)) == expected)
    }

    @Test func plainArchiveOpensInPythonAndUnzipAndReadsBack() throws {
        let folder = try TemporaryDirectory(prefix: "zip-writer")
        let entries = Self.entries(count: 60)
        let path = folder.file("plain.szi")
        let size = try Self.write(entries, to: path)
        #expect(size == UInt64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int))
        try Self.expectToolsAccept(path, entries)
        try expectReadsBack(path, entries)
    }

    @Test func zip64RecordsOpenInPythonAndUnzipAndReadBack() throws {
        let folder = try TemporaryDirectory(prefix: "zip-writer")
        let entries = Self.entries(count: 40, seed: 9)
        let path = folder.file("zip64.szi")
        _ = try Self.write(entries, to: path, zip64Threshold: 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The ZIP64 end record, its locator and the short end record with its markers are all there.
        #expect(bytes.count > 98 && Array(bytes[bytes.count - 98..<bytes.count - 94]) == [0x50, 0x4b, 0x06, 0x06])
        try Self.expectToolsAccept(path, entries)
        try expectReadsBack(path, entries)
    }

    /// What `onWritten` reports is final when reported: the bytes copied out at each report, in order, are the finished
    /// archive's, and the last report is its size.
    @Test func writtenBytesAreReportedOnlyOnceFinal() throws {
        let directory = try TemporaryDirectory(prefix: "zip")
        defer { directory.remove() }
        let path = directory.file("streamed.szi")
        let entries = Self.entries(count: 3000)
        let copied = NSLock()
        nonisolated(unsafe) var copy: [UInt8] = []
        nonisolated(unsafe) var reports = 0
        nonisolated(unsafe) var descriptor: Int32 = -1
        let writer = try ZIPWriter(path: path) { through in
            copied.withLock {
                reports += 1
                if descriptor < 0 { descriptor = open(path, O_RDONLY) }
                guard through > UInt64(copy.count) else { return }
                var more = [UInt8](repeating: 0, count: Int(through) - copy.count)
                #expect(pread(descriptor, &more, more.count, off_t(copy.count)) == more.count)
                copy += more
            }
        }
        DispatchQueue.concurrentPerform(iterations: 4) { part in
            for index in stride(from: part, to: entries.count, by: 4) {
                try? entries[index].bytes.withUnsafeBytes { try writer.append(name: entries[index].name, bytes: $0) }
            }
        }
        let size = try writer.finish()
        close(descriptor)
        let written = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(reports > 100 && copy.count == Int(size) && copy == written)
    }

    @Test func existingFileIsNotOverwritten() throws {
        let folder = try TemporaryDirectory(prefix: "zip-writer")
        let path = try folder.write([1, 2, 3], to: "taken.szi")
        #expect(throws: ArchiveError.self) { try ZIPWriter(path: path) }
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) == [1, 2, 3])
    }

    private func expectReadsBack(_ path: String, _ entries: [(name: String, bytes: [UInt8])]) throws {
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let directory = try ZIPDirectory(fd: fd, label: path)
        #expect(directory.count == entries.count)
        var byName: [String: [UInt8]] = [:]
        for index in 0..<directory.count {
            byName[String(decoding: directory.name(index), as: UTF8.self)] = try ZIPDirectory.read(
                fd, at: directory.dataOffsets[index], count: Int(directory.sizes[index]), label: path)
        }
        for entry in entries { #expect(byName[entry.name] == entry.bytes, "\(entry.name)") }
    }
}
