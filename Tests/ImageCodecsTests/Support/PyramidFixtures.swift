import Foundation
import ImageCodecs
import TestSupport

/// Pyramidal TIFFs made once per test run from one 1000 × 700 picture: by `vips tiffsave` (JPEG and Deflate, 256- and
/// 512-pixel tiles, `--subifd`, `--bigtiff`), by tifffile (an Aperio-shaped SVS, classic and BigTIFF, and an OME-TIFF),
/// and tifffile's description of each (``catalog``), the independent account of what was written.
final class PyramidFixtures: Sendable {
    /// One directory as tifffile read it.
    struct IFD: Decodable, Sendable {
        var kind: String  // "main" (the IFD chain) or "sub" (a SubIFD of the IFD before it)
        var width: Int, height: Int, tileWidth: Int, tileHeight: Int
        var compression: Int, subfileType: Int
        var description: String
        var offsets: [Int], counts: [Int]
        var jpegTables: String  // hex

        var tables: [UInt8] {
            stride(from: 0, to: jpegTables.count, by: 2).map { at in
                let start = jpegTables.index(jpegTables.startIndex, offsetBy: at)
                return UInt8(jpegTables[start..<jpegTables.index(start, offsetBy: 2)], radix: 16)!
            }
        }
    }

    /// One file as tifffile read it.
    struct File: Decodable, Sendable {
        var bigTIFF: Bool
        var ifds: [IFD]
    }

    /// The vips-made files: name and `vips tiffsave` options after `--tile --pyramid` (and their tile size).
    static let vipsFiles: [(name: String, options: [String])] = [
        ("vips-jpeg.tif", ["--tile-width", "256", "--tile-height", "256", "--compression", "jpeg", "--Q", "85"]),
        ("vips-deflate-512.tif", ["--tile-width", "512", "--tile-height", "512", "--compression", "deflate"]),
        ("vips-subifd.tif", ["--tile-width", "256", "--tile-height", "256", "--compression", "jpeg", "--subifd"]),
        ("vips-big.tif", ["--tile-width", "256", "--tile-height", "256", "--compression", "jpeg", "--bigtiff"]),
        ("vips-big-subifd-deflate.tif", ["--tile-width", "256", "--tile-height", "256", "--compression", "deflate", "--subifd", "--bigtiff"]),
    ]
    static let pythonFiles = ["aperio.svs", "aperio-big.svs", "image.ome.tif"]

    /// Made on first use; every test that needs the files shares them.
    private static let made = Result { try PyramidFixtures() }

    /// The shared fixtures (throws when vips, tifffile or Pillow failed: the tests then fail, they are not skipped).
    static func shared() throws -> PyramidFixtures { try made.get() }

    let directory: TemporaryDirectory
    /// The source picture (RGB).
    let source: PixelBuffer
    /// tifffile's account of every file, by name.
    let catalog: [String: File]

    private init() throws {
        directory = try TemporaryDirectory(prefix: "pyramid")
        let folder = directory.path
        atexit { try? PyramidFixtures.shared().directory.remove() }
        source = SmoothImage.make(width: 1000, height: 700)
        try directory.write(try PNGEncoder().encode(source), to: "source.png")
        for (name, options) in Self.vipsFiles {
            try Self.run("/usr/bin/vips", ["tiffsave", folder + "/source.png", folder + "/" + name, "--tile", "--pyramid"] + options)
        }
        let script = try directory.write(Array(Self.script.utf8), to: "fixtures.py")
        let json = try Self.run("/usr/bin/python3", [script, folder, folder + "/source.png"] + Self.vipsFiles.map(\.name) + Self.pythonFiles)
        catalog = try JSONDecoder().decode([String: File].self, from: json)
    }

    /// The path of fixture `name`.
    func path(_ name: String) -> String { directory.file(name) }

    /// The bytes of fixture `name`.
    func bytes(_ name: String) throws -> [UInt8] { try directory.read(name) }

    /// Runs a tool and returns its standard output; a failure throws with its standard error.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let problem = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let command = ([tool] + arguments).joined(separator: " ")
            throw FixtureError(message: "\(command) failed: \(String(decoding: problem, as: UTF8.self))")
        }
        return data
    }
}
