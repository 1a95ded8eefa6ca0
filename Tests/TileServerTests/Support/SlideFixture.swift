import Foundation

/// Whole-slide images for the slide tests, in a ``PyramidFixture``'s ROOT: openslide-python's own test slides (fetched
/// once by `scripts/setup` into a cache) and the slides `Tests/Support/slides/make_slides.py` writes (a Hamamatsu VMS,
/// a VMS missing one of its JPEGs, a generic TIFF with separate colour planes); and what OpenSlide itself makes of them
/// (`slide_reference.py`, python3-openslide's DeepZoomGenerator), to compare with.
enum SlideFixture {
    /// The folder holding openslide-python 1.2.0's `tests/` (`TILER_SLIDE_FIXTURES`, else the cache `scripts/setup`
    /// fills).
    static var openslidePythonTests: String {
        let environment = ProcessInfo.processInfo.environment
        let cache = environment["XDG_CACHE_HOME"] ?? (NSHomeDirectory() + "/.cache")
        return (environment["TILER_SLIDE_FIXTURES"] ?? cache + "/tiler/openslide-python-1.2.0") + "/tests"
    }

    /// `Tests/Support/slides/` in this checkout.
    static var scripts: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Support/slides").path
    }

    /// Copies openslide-python's slides into ROOT and writes the generated ones there. Blocking (runs Python).
    static func addSlides(to fixture: PyramidFixture) throws {
        let source = openslidePythonTests
        for name in ["small.svs", "boxes.tiff", "unreadable.svs", "unopenable.tiff"] {
            guard FileManager.default.fileExists(atPath: source + "/" + name) else {
                throw StoredFixtureError(description: "\(source)/\(name) is missing: run scripts/setup (it fetches openslide-python's test slides)")
            }
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: fixture.root + "/" + name)
        }
        try run("/usr/bin/python3", [scripts + "/make_slides.py", fixture.root])
    }

    /// What OpenSlide's DeepZoomGenerator makes of the slide at `path`: `{folder}/{level}/{col}_{row}.png` and
    /// `{folder}/properties.json`, written into a new folder beside ROOT, returned. Blocking.
    static func reference(_ path: String, in fixture: PyramidFixture) throws -> String {
        let folder = fixture.base + "/reference-" + UUID().uuidString
        try run("/usr/bin/python3", [scripts + "/slide_reference.py", path, folder])
        return folder
    }

    /// Runs `executable` with `arguments` and waits; throws with its standard error when it fails.
    static func run(_ executable: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: message, as: UTF8.self)
            throw StoredFixtureError(description: "\(executable) \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }
}
