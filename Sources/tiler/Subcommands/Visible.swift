import ArgumentParser
import Foundation
import TileGeometry

/// `tiler visible`: prints, as JSON, the level and tiles a viewer showing a viewport of an image needs.
///
/// Parses and validates the options, then delegates to `Pyramid.visibleTiles(in:)` and `VisibleTiles.json()`.
struct Visible: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the level and tiles (nearest the centre first) a viewer needs for a viewport, as JSON.",
        discussion: """
            Describe the image with --dzi FILE, or with --size WxH [--tile-size 256] [--overlap 0]. The viewport is \
            a UIScrollView: --offset is its contentOffset in points of the zoomed content, --zoom its zoomScale \
            (points per image pixel). Negative numbers work as option values: --offset -100,-50 or --offset=-100,-50.

            Example: tiler visible --size 100000x60000 --offset=-100,2000 --viewport 1920x1080 --zoom 0.05 --prefetch 1
            """)

    @Option(help: ArgumentHelp("A .dzi descriptor describing the image.", valueName: "file"))
    var dzi: String?

    @Option(help: ArgumentHelp("The image size in pixels, instead of --dzi.", valueName: "WxH"))
    var size: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The tile edge in pixels (with --size; default 256).", valueName: "n"))
    var tileSize: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The DZI overlap in pixels (with --size; default 0).", valueName: "n"))
    var overlap: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("The content offset in points; may be negative.", valueName: "X,Y"))
    var offset: String

    @Option(help: ArgumentHelp("The viewport size in points.", valueName: "WxH"))
    var viewport: String

    @Option(parsing: .unconditional, help: ArgumentHelp("The zoom scale: points per image pixel (> 0).", valueName: "scale"))
    var zoom: String

    @Option(parsing: .unconditional, help: ArgumentHelp("Device pixels per point (> 0).", valueName: "scale"))
    var contentScale: String = "1"

    @Option(parsing: .unconditional, help: ArgumentHelp("Whole tiles of margin around the visible ones (≥ 0).", valueName: "n"))
    var prefetch: String = "0"

    /// The option each library parameter name comes from, for error messages.
    private static let viewportOptions = [
        "x": "--offset", "y": "--offset", "width": "--viewport", "height": "--viewport", "zoomScale": "--zoom",
        "contentScale": "--content-scale", "prefetch": "--prefetch", "viewport": "--viewport",
    ]
    private static let sizeOptions = ["width": "--size", "height": "--size", "tileSize": "--tile-size", "overlap": "--overlap"]

    func validate() throws {
        _ = try query()
    }

    func run() throws {
        let (pyramid, viewport) = try query()
        let answer = try Self.option(Self.viewportOptions) { () throws(GeometryError) in try pyramid.visibleTiles(in: viewport) }
        print(answer.json())
    }

    /// The pyramid and viewport the options describe.
    private func query() throws -> (Pyramid, Viewport) {
        let pyramid = try imagePyramid()
        let (x, y) = try Self.pair(offset, separator: ",", option: "--offset", names: ("x", "y"))
        let (width, height) = try Self.pair(viewport, separator: "x", option: "--viewport", names: ("width", "height"))
        let viewport = try Self.option(Self.viewportOptions) { () throws(GeometryError) in
            try Viewport(
                x: x, y: y, width: width, height: height, zoomScale: GeometryInput.decimal(zoom, parameter: "zoomScale"),
                contentScale: GeometryInput.decimal(contentScale, parameter: "contentScale"),
                prefetch: GeometryInput.integer(prefetch, parameter: "prefetch"))
        }
        return (pyramid, viewport)
    }

    /// The pyramid `--dzi` or `--size` (with `--tile-size`, `--overlap`) describes.
    private func imagePyramid() throws -> Pyramid {
        switch (dzi, size) {
        case (let path?, nil):
            guard tileSize == nil && overlap == nil else {
                throw ValidationError("--tile-size and --overlap go with --size; a .dzi file gives its own")
            }
            return try Self.pyramid(dziPath: path)
        case (nil, let size?):
            let (width, height) = try Self.pair(size, separator: "x", option: "--size", names: ("width", "height"))
            return try Self.option(Self.sizeOptions, default: "--size") { () throws(GeometryError) in
                guard let width = Int(exactly: width), let height = Int(exactly: height) else {
                    throw GeometryError(parameter: "width", message: "width and height must be integers (got \(size))")
                }
                return try Pyramid.validated(
                    width: width, height: height, tileSize: GeometryInput.integer(tileSize ?? "256", parameter: "tileSize"),
                    overlap: GeometryInput.integer(overlap ?? "0", parameter: "overlap"))
            }
        default:
            throw ValidationError("--dzi/--size: describe the image with exactly one of --dzi FILE and --size WxH")
        }
    }

    /// The pyramid of the `.dzi` file at `path` (read whole; at most 1 MiB).
    private static func pyramid(dziPath path: String) throws -> Pyramid {
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            data = try handle.read(upToCount: (1 << 20) + 1) ?? Data()
        } catch {
            throw ValidationError("--dzi: cannot read \(path): \(error.localizedDescription)")
        }
        guard data.count <= 1 << 20 else { throw ValidationError("--dzi: \(path) is larger than 1 MiB; not a descriptor") }
        let text = String(decoding: data, as: UTF8.self)
        return try option("--dzi") { () throws(GeometryError) in try DZIDescriptor(xml: text).pyramid }
    }

    /// Splits `text` at `separator` into two decimals named `names` (for messages).
    private static func pair(_ text: String, separator: Character, option: String, names: (String, String)) throws -> (Double, Double) {
        let parts = text.split(separator: separator, maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw ValidationError("\(option) must look like \(names.0)\(separator)\(names.1) (got \"\(text)\")") }
        return try Self.option(option) { () throws(GeometryError) in
            (try GeometryInput.decimal(parts[0], parameter: names.0), try GeometryInput.decimal(parts[1], parameter: names.1))
        }
    }

    /// Runs `body`, turning a ``GeometryError`` into a one-line `ValidationError` prefixed with `option`.
    private static func option<T>(_ option: String, _ body: () throws(GeometryError) -> T) throws -> T {
        try Self.option([:], default: option, body)
    }

    /// Runs `body`, turning a ``GeometryError`` into a one-line `ValidationError` prefixed with the option its
    /// parameter came from (`options[parameter]`, else `fallback`).
    private static func option<T>(_ options: [String: String], default fallback: String = "--viewport", _ body: () throws(GeometryError) -> T) throws
        -> T
    {
        do {
            return try body()
        } catch {
            throw ValidationError("\(options[error.parameter] ?? fallback): \(error.message)")
        }
    }
}
