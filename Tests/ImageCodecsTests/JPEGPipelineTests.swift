import CJPEG
import Foundation
import ImageCodecs
import TestSupport
import Testing

/// Large JPEGs decoded on two threads (`DecodeOptions.pipelinedJPEG`, jpeg_pipeline.c) against the same files decoded on
/// one: the same rows, and for damaged files the same error, at the same row, after the same rows.
@Suite struct JPEGPipelineTests {
    /// 4096², the smallest size the pipeline takes (16 MP).
    static let side = 4096

    /// A 4:4:4 colour (`components` 3) or grey (1) picture of `side`² with detail in every block, so that its entropy
    /// data is not trivial.
    static func write(components: Int, sampling: Int32 = 1, restartMarkers: Bool = false, to path: String) throws {
        var pixels = [UInt8](repeating: 0, count: side * side * components)
        var state: UInt32 = 12345
        for y in 0..<side {
            for x in 0..<side {
                state = state &* 1_664_525 &+ 1_013_904_223
                let noise = Int(state >> 27)
                for c in 0..<components {
                    pixels[(y * side + x) * components + c] = UInt8(truncatingIfNeeded: (x >> (c + 2)) + (y >> 3) * (c + 1) + noise)
                }
            }
        }
        try JPEGFixture.write(
            pixels: pixels, width: side, height: side, components: components,
            colorSpace: components == 1 ? TILER_JPEG_CS_GRAY : TILER_JPEG_CS_YCBCR, hSamp: sampling, vSamp: sampling, to: path)
        if restartMarkers { try Self.addRestartMarkers(path) }
    }

    /// Rewrites the file with a restart marker every 32 MCUs (jpegtran), when jpegtran is installed.
    static func addRestartMarkers(_ path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jpegtran")
        process.arguments = ["-restart", "32B", "-copy", "none", "-outfile", path + ".rst", path]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw FixtureError(message: "jpegtran failed") }
        _ = rename(path + ".rst", path)
    }

    /// What reading the whole file in strips of `rowsPerStrip` gives: the rows delivered before any error, and the
    /// error.
    static func read(_ path: String, pipelined: Bool, rowsPerStrip: Int = 64) throws -> (rows: [UInt8], error: CodecError?) {
        var options = DecodeOptions()
        options.pipelinedJPEG = pipelined
        let reader = try ImageDecoder.open(path: path, options: options)
        let stride = reader.header.width * reader.header.channels
        var strip = [UInt8](repeating: 0, count: stride * rowsPerStrip)
        var all: [UInt8] = []
        do {
            while true {
                let rows = try strip.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, rowCount: rowsPerStrip) }
                all += strip[0..<rows * stride]
                if rows < rowsPerStrip { return (all, nil) }
            }
        } catch let error as CodecError {
            return (all, error)
        }
    }

    /// Where two decodes first differ ("same" when they do not): a failure message, where `#expect(a == b)` on
    /// 50 MB arrays would describe both.
    static func difference(_ a: [UInt8], _ b: [UInt8], rowBytes: Int) -> String {
        guard a != b else { return "same" }
        guard let index = (0..<min(a.count, b.count)).first(where: { a[$0] != b[$0] }) else { return "\(a.count) against \(b.count) bytes" }
        return "first difference in row \(index / rowBytes), byte \(index % rowBytes): \(a[index]) against \(b[index])"
    }

    @Test(
        "A large 4:4:4 or grey JPEG gives the same rows on two threads as on one",
        arguments: [(3, false, 64), (1, false, 64), (3, true, 37), (3, false, 1)])
    func sameRows(components: Int, restartMarkers: Bool, rowsPerStrip: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("large.jpg")
        try Self.write(components: components, restartMarkers: restartMarkers, to: path)
        let one = try Self.read(path, pipelined: false, rowsPerStrip: rowsPerStrip)
        let two = try Self.read(path, pipelined: true, rowsPerStrip: rowsPerStrip)
        #expect(one.error == nil && two.error == nil)
        #expect(one.rows.count == Self.side * Self.side * components)
        #expect(Self.difference(one.rows, two.rows, rowBytes: Self.side * components) == "same")
    }

    /// Damage to a large file: cut at a fraction of its length, cut just before its EOI, or a run of bytes in its
    /// entropy data overwritten.
    enum Damage: CustomStringConvertible, CaseIterable {
        case cutAtAThird, cutBeforeEOI, overwrittenMidway, markerMidway
        var description: String {
            switch self {
            case .cutAtAThird: "cut at a third"
            case .cutBeforeEOI: "cut before its EOI"
            case .overwrittenMidway: "bytes overwritten midway"
            case .markerMidway: "a marker midway"
            }
        }

        func apply(to bytes: inout [UInt8]) {
            switch self {
            case .cutAtAThird: bytes.removeLast(bytes.count * 2 / 3)
            case .cutBeforeEOI: bytes.removeLast(2)
            case .overwrittenMidway:
                for index in bytes.count / 2..<bytes.count / 2 + 64 { bytes[index] = UInt8(truncatingIfNeeded: index &* 37) }
            case .markerMidway:
                bytes[bytes.count / 2] = 0xFF
                bytes[bytes.count / 2 + 1] = 0xD9
            }
        }
    }

    @Test("A damaged large JPEG fails on two threads as on one: same error, same row, same rows before", arguments: Damage.allCases)
    func sameFailure(damage: Damage) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("damaged.jpg")
        try Self.write(components: 3, to: path)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        damage.apply(to: &bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let one = try Self.read(path, pipelined: false)
        let two = try Self.read(path, pipelined: true)
        let error = try #require(two.error, "\(damage): no error on two threads")
        #expect(error == one.error)
        #expect(error.kind == .truncated || error.kind == .corrupt)
        #expect(error.row != nil)
        #expect(Self.difference(one.rows, two.rows, rowBytes: Self.side * 3) == "same")
        // Without its EOI every row decodes; the call that reads the last ones fails.
        if damage == .cutBeforeEOI { #expect(two.rows.count == (Self.side - 64) * Self.side * 3) }
    }

    @Test("A large JPEG closed halfway stops its decoding thread")
    func closedHalfway() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("large.jpg")
        try Self.write(components: 3, to: path)
        for rows in [0, 1, 8, 1000, 2048] {
            let reader = try ImageDecoder.open(path: path)
            var strip = [UInt8](repeating: 0, count: Self.side * 3 * max(rows, 1))
            if rows > 0 {
                #expect(try strip.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, rowCount: rows) } == rows)
            }
            // The reader goes here; its thread must be stopped and joined (a crash or a hang otherwise).
        }
        #expect(try Self.read(path, pipelined: true).error == nil)
    }
}
