import Foundation
import ImageCodecs
import Testing

@Suite struct InfoCommandTests {
    @Test(arguments: [
        ("a.jpg", ImageFileWriter.Format.jpeg(quality: 90, subsampling: .s420, progressive: false), "jpeg", 3, false),
        ("b.jpg", ImageFileWriter.Format.jpeg(quality: 80, subsampling: .s444, progressive: true), "jpeg", 3, true),
        ("c.png", ImageFileWriter.Format.png(compressionLevel: 6), "png", 4, false),
    ])
    func describesTheHeaderAndThePyramid(name: String, format: ImageFileWriter.Format, formatName: String, channels: Int, progressive: Bool)
        throws
    {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let path = try fixtures.image(name, width: 1000, height: 777, pixelFormat: channels == 4 ? .rgba : .rgb, format: format)
        let result = try TilerProcess.run(["info", path, "--json", "--verify"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["format"] as? String == formatName)
        #expect(json["width"] as? Int == 1000)
        #expect(json["height"] as? Int == 777)
        #expect(json["channels"] as? Int == channels)
        #expect(json["bitDepth"] as? Int == 8)
        #expect(json["interlaced"] as? Bool == false)
        #expect(json["progressive"] as? Bool == progressive)
        #expect(json["verifiedRows"] as? Int == 777)
        let pyramid = try #require(json["pyramid"] as? [String: Any])
        #expect(pyramid["maxLevel"] as? Int == 10)
        // Level 10: 4 × 4 tiles; 9: 2 × 2; 8 and below: 1 each (9 levels).
        #expect(pyramid["tiles"] as? Int == 16 + 4 + 9)
    }

    @Test func textOutputNamesTheFacts() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let path = try fixtures.image("g.png", width: 300, height: 20, pixelFormat: .gray, format: .png())
        let result = try TilerProcess.run(["info", path])
        #expect(result.status == 0)
        #expect(result.stdout.contains("PNG, 300 × 20"))
        #expect(result.stdout.contains("level 9: 300 × 20, 2 × 1 tiles"))
        #expect(result.stdout.contains("streams: yes"))
    }

    @Test func aWebPSaysItCannotStream() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let bytes = (0..<(120 * 80 * 3)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let webp = try WebPEncoder(quality: 90).encode(PixelBuffer(width: 120, height: 80, pixelFormat: .rgb, bytes: bytes))
        let path = try fixtures.file("w.webp", bytes: webp)
        let text = try TilerProcess.run(["info", path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("WebP (libwebp decodes it whole): cannot stream"), "\(text.stdout)")
        #expect(!text.stdout.contains("streams: yes"))
        let json = try TilerProcess.run(["info", path, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["streamable"] as? Bool == false)
    }

    /// Every kind of bad input: a non-zero exit, exactly one line on stderr naming the file, never a signal.
    @Test func badInputFailsWithOneClearLine() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let good = try fixtures.image("good.jpg", width: 640, height: 480, format: .jpeg())
        let jpeg = try fixtures.bytes("good.jpg")
        try fixtures.image("goodpng.png", width: 640, height: 480, format: .png())
        let png = try fixtures.bytes("goodpng.png")
        var generator = SystemRandomNumberGenerator()
        let cases: [(String, [UInt8], String)] = [
            ("cut.jpg", Array(jpeg.prefix(jpeg.count / 2)), "row"),
            ("cut.png", Array(png.prefix(png.count / 2)), "row"),
            ("empty.png", [], "empty"),
            ("random.jpg", (0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }, "unsupported format"),
            ("signature.png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "PNG"),
            ("zero.png", Fixtures.pngHeader(width: 0, height: 10), "zero.png"),
            ("huge.png", Fixtures.pngHeader(width: 2_000_000_000, height: 2_000_000_000), "limit"),
            ("hugebody.png", Fixtures.pngHeader(width: 300_000, height: 300_000) + png.dropFirst(33), "limit"),
            ("text.jpg", Array("hello, this is not an image\n".utf8), "unsupported format"),
        ]
        for (name, bytes, word) in cases {
            let path = try fixtures.file(name, bytes: bytes)
            let started = Date()
            let result = try TilerProcess.run(["info", "--verify", path])
            #expect(result.status != 0, "\(name) should fail")
            #expect(!result.signalled, "\(name) crashed")
            #expect(Date().timeIntervalSince(started) < 10, "\(name) took too long")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1, "\(name): \(result.stderr)")
            #expect(result.stderr.contains(name), "\(name): \(result.stderr)")
            #expect(result.stderr.lowercased().contains(word.lowercased()), "\(name): \(result.stderr)")
        }
        for (path, word) in [(fixtures.folder.path, "directory"), (fixtures.path("missing.png"), "no such file")] {
            let result = try TilerProcess.run(["info", path])
            #expect(result.status != 0 && !result.signalled)
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stderr.contains(word), "\(result.stderr)")
        }
        // The header alone is fine for a truncated file; --verify is what finds the damage.
        let header = try TilerProcess.run(["info", fixtures.path("cut.jpg")])
        #expect(header.status == 0)
        #expect(FileManager.default.fileExists(atPath: good))
    }

    /// A named pipe is refused at once, by `info` and by `slice`, instead of waiting for a writer.
    @Test(arguments: [["info"], ["slice"]])
    func aNamedPipeIsRefusedWithoutWaiting(command: [String]) throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let pipe = fixtures.path("pipe.jpg")
        try #require(mkfifo(pipe, 0o600) == 0)
        let output = fixtures.path("out")
        let result = try TilerProcess.run(command + [pipe] + (command == ["slice"] ? ["-o", output] : []), timeout: 20)
        #expect(!result.timedOut, "tiler \(command[0]) waited on a named pipe")
        #expect(result.status != 0)
        #expect(result.stderr.contains("\(pipe): is a named pipe (FIFO), not a file"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output + "/pipe.dzi"))
    }
}
