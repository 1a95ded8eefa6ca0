import Foundation
import ImageCodecs
import Testing

/// `tiler slice` and `tiler info` on whole-slide images read through OpenSlide (a Hamamatsu VMS written by
/// `Tests/Support/slides/make_slides.py`), through the built binary.
@Suite struct SliceSlideCommandTests {
    /// Writes the generated slides into `fixtures` (`vms/slide.vms`, `vms-broken/slide.vms`, …).
    static func makeSlides(_ fixtures: Fixtures) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/slides/make_slides.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [script, fixtures.path("slides")]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func aSlideSlicesToThePixelsItIsServedWith() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        try Self.makeSlides(fixtures)
        let input = fixtures.path("slides/vms/slide.vms")
        let info = try TilerProcess.run(["info", input])
        #expect(info.status == 0 && info.stdout.contains("1024 × 768"), "\(info.stdout) \(info.stderr)")
        let out = fixtures.path("o")
        let result = try TilerProcess.run(["slice", input, "-o", out, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try String(contentsOfFile: out + "/slide.dzi", encoding: .utf8).contains("Width=\"1024\" Height=\"768\""))
        // Served in place, a Deep Zoom level that is a stored level is OpenSlide's pixels of that level (its JPEGs
        // decoded at 1, 1/2, 1/4 scale); sliced, it is the full resolution halved. Within 2 levels on average.
        let slide = try Slide(path: input)
        for (level, stored) in [(10, 0), (9, 1), (8, 2)] {
            let size = slide.levels[stored]
            for row in 0..<(size.height + 255) / 256 {
                for column in 0..<(size.width + 255) / 256 {
                    let sliced = try ImageDecoder.decode(path: "\(out)/slide_files/\(level)/\(column)_\(row).jpg")
                    // What the server sends for this tile: OpenSlide's pixels of the stored level, as JPEG at quality 85.
                    let pixels = try slide.rgb(
                        level: stored, x: column * 256 << stored, y: row * 256 << stored, width: min(256, size.width - column * 256),
                        height: min(256, size.height - row * 256))
                    let served = try decodeJPEG(try JPEGEncoder(quality: 85).encode(pixels))
                    #expect(sliced.width == served.width && sliced.height == served.height)
                    var total = 0
                    for (a, b) in zip(sliced.bytes, served.bytes) { total += abs(Int(a) - Int(b)) }
                    let mean = Double(total) / Double(max(1, served.bytes.count))
                    #expect(mean < 2, "tile \(level)/\(column)_\(row) differs from the served one by \(mean) on average")
                }
            }
        }
    }

    /// Decodes JPEG bytes (through a temporary file: ImageCodecs decodes from paths).
    func decodeJPEG(_ bytes: [UInt8]) throws -> PixelBuffer {
        let path = NSTemporaryDirectory() + "/served-\(UUID().uuidString).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try ImageDecoder.decode(path: path)
    }

    @Test func aSlideMissingAJPEGIsAOneLineErrorAndNoOutput() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        try Self.makeSlides(fixtures)
        let out = fixtures.path("o")
        let result = try TilerProcess.run(["slice", fixtures.path("slides/vms-broken/slide.vms"), "-o", out, "--quiet"])
        #expect(result.status != 0 && !result.signalled)
        #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains("slide(1,1).jpg"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out + "/slide.dzi"))
    }
}
