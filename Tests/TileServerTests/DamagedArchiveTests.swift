import Foundation
import Synchronization
import TestSupport
import Testing

@testable import TileServer
@testable import TileSources

/// Damaged SZIs are refused when the catalog finds them, one log line each (not repeated at every scan), and never
/// served; the good archive beside them is.
@Suite struct DamagedArchiveTests {
    static let centralSignature: [UInt8] = [0x50, 0x4b, 0x01, 0x02]
    static let endSignature: [UInt8] = [0x50, 0x4b, 0x05, 0x06]

    static func lastRecord(_ signature: [UInt8], in bytes: [UInt8]) -> Int {
        (0...(bytes.count - 4)).last { Array(bytes[$0..<$0 + 4]) == signature }!
    }

    static func patch(_ bytes: inout [UInt8], at offset: Int, _ value: some FixedWidthInteger) {
        withUnsafeBytes(of: value.littleEndian) { for (index, byte) in $0.enumerated() { bytes[offset + index] = byte } }
    }

    /// ROOT with `good.szi` and one damaged archive of each kind; returns the damaged ones' names and the words their
    /// log line must hold.
    static func makeFixture() throws -> (PyramidFixture, [String: String]) {
        let fixture = try PyramidFixture()
        try fixture.addArchive("good", width: 600, height: 400)
        let good = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/good.szi")))
        var damaged: [String: [UInt8]] = [:]
        damaged["truncated"] = Array(good[..<(good.count - 30)])
        var pastEnd = good
        patch(&pastEnd, at: lastRecord(endSignature, in: good) + 16, UInt32(good.count))
        damaged["pastend"] = pastEnd
        var compressed = good
        patch(&compressed, at: lastRecord(centralSignature, in: good) + 10, UInt16(8))
        damaged["compressed"] = compressed
        for (name, bytes) in damaged { try Data(bytes).write(to: URL(fileURLWithPath: fixture.root + "/\(name).szi")) }
        try fixture.addArchive("dotdot", width: 600, height: 400, extra: [("dotdot/../evil.jpg", [1])])
        try fixture.addArchive("twice", width: 600, height: 400, extra: [("twice/twice_files/0/0_0.jpg", [2])])
        // ZIP64 records throughout, with one entry's 64-bit offset lying past the central directory.
        let lying = fixture.root + "/lying.szi"
        try fixture.writeArchive([("lying/lying_files/0/0_0.jpg", [1, 2, 3]), ("lying/lying.dzi", Array("x".utf8))], to: lying, zip64: true)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: lying)))
        let central = lastRecord(centralSignature, in: bytes)
        let nameLength = Int(bytes[central + 28]) | Int(bytes[central + 29]) << 8
        patch(&bytes, at: central + 46 + nameLength + 4, UInt64(1) << 40)
        try Data(bytes).write(to: URL(fileURLWithPath: lying))
        try Data(repeating: 0x50, count: 3000).write(to: URL(fileURLWithPath: fixture.root + "/garbage.szi"))
        let words = [
            "truncated": "no end of central directory record", "pastend": "reaches past the end records", "compressed": "is compressed",
            "dotdot": "\"..\" component", "twice": "two entries are named", "lying": "reaches past the start of the central directory",
            "garbage": "no end of central directory record",
        ]
        return (fixture, words)
    }

    @Test func eachDamagedArchiveIsReportedOnceAndNotListed() throws {
        let (fixture, words) = try Self.makeFixture()
        let recorder = LogRecorder(level: .trace)
        let catalog = ImageCatalog(root: fixture.root, maxDepth: 4, logger: recorder.logger, fullWalkEvery: 1)
        for _ in 0..<3 { catalog.rescan() }
        #expect(catalog.images.map(\.name) == ["good"])
        let lines = recorder.lines.filter { $0.hasPrefix("Not serving") }
        #expect(lines.count == words.count, "\(lines)")
        for (name, word) in words {
            let line = lines.filter { $0.contains("/\(name).szi:") }
            #expect(line.count == 1 && line[0].contains(word) && !line[0].contains("\n"), "\(name): \(line)")
        }
    }

    @Test func damagedArchivesAnswer404AndTheServerKeepsServing() async throws {
        let (fixture, words) = try await blocking { try Self.makeFixture() }
        try await withServer(fixture) { server in
            for name in words.keys {
                #expect(try fetch(server, "/images/\(name).dzi").status == 404)
                #expect(try fetch(server, "/images/\(name)_files/0/0_0.jpg").status == 404)
            }
            let tile = try fetch(server, "/images/good_files/9/1_0.jpg")
            #expect(tile.status == 200 && tile.body == PyramidFixture.tileBytes(level: 9, column: 1, row: 0, count: 100))
        }
    }
}
