import COpenSlide
import CTIFF

/// A whole-slide image open through OpenSlide (Aperio, Hamamatsu, MIRAX, Leica, Philips, Ventana, Sakura, generic
/// tiled TIFF): its levels, properties and associated images, and any region as straight RGB.
///
/// Thread-safe: OpenSlide handles may be read from any number of threads at once. Once a read fails, OpenSlide keeps
/// the handle in its error state and every later call fails too: drop the `Slide` and open the file again. The handle
/// is closed when the last reference goes. Memory: OpenSlide's own tile cache, 32 MiB at most per handle (fixed in
/// OpenSlide 3.4, which has no call to size it), plus the descriptors its format keeps open.
public final class Slide: Sendable {
    /// One stored resolution.
    public struct Level: Sendable, Equatable {
        /// Size in pixels.
        public let width: Int, height: Int
        /// Level-0 pixels per pixel of this level (1 for level 0; not always a power of two, nor exactly width ratio).
        public let downsample: Double
    }

    /// The path as the caller gave it.
    public let path: String
    /// OpenSlide's name for the format, e.g. `"aperio"`, `"mirax"`, `"generic-tiff"`.
    public let vendor: String
    /// The levels, finest first.
    public let levels: [Level]
    /// Every property, by name (`openslide.mpp-x`, `openslide.objective-power`, `aperio.AppMag`, …).
    public let properties: [String: String]
    /// The associated images (`label`, `macro`, `thumbnail`, …) and their sizes in pixels.
    public let associatedImages: [String: (width: Int, height: Int)]
    /// The colour transparent regions are shown in: `openslide.background-color` (`RRGGBB`), else white.
    public let background: (red: UInt8, green: UInt8, blue: UInt8)

    nonisolated(unsafe) private let handle: OpaquePointer

    /// OpenSlide's name for the format of the file at `path`, or nil when it recognises none. Reads the file's header
    /// (and, for multi-file formats, its key file).
    public static func vendor(of path: String) -> String? {
        // OpenSlide's libtiff handles report through libtiff's process-wide handlers: counted, never printed (this
        // comes before every OpenSlide open, which detects the vendor first).
        tiler_tiff_route_stray_messages()
        return tiler_slide_detect_vendor(path).map { String(cString: $0) }
    }

    /// Opens the slide at `path` and reads its levels, properties and the names of its associated images.
    ///
    /// - Throws: ``SlideError`` — `.notASlide` when OpenSlide recognises no format, `.damaged` when it recognises one
    ///   but fails (OpenSlide's message as the reason).
    public init(path: String) throws(SlideError) {
        self.path = path
        guard let vendor = Self.vendor(of: path) else { throw SlideError(kind: .notASlide, path: path, reason: "not a slide OpenSlide reads") }
        guard let opened = tiler_slide_open(path) else { throw SlideError(kind: .notASlide, path: path, reason: "not a slide OpenSlide reads") }
        if let message = tiler_slide_error(opened) {
            let reason = String(cString: message)
            tiler_slide_close(opened)
            throw SlideError(kind: .damaged, path: path, reason: reason)
        }
        handle = opened
        self.vendor = vendor
        levels = (0..<max(0, Int(tiler_slide_level_count(opened)))).map { index in
            var width: Int64 = 0
            var height: Int64 = 0
            tiler_slide_level_size(opened, Int32(index), &width, &height)
            return Level(width: Int(width), height: Int(height), downsample: tiler_slide_level_downsample(opened, Int32(index)))
        }
        var properties: [String: String] = [:]
        for name in Self.strings(tiler_slide_property_names(opened)) {
            properties[name] = tiler_slide_property_value(opened, name).map { String(cString: $0) }
        }
        self.properties = properties
        var associated: [String: (width: Int, height: Int)] = [:]
        for name in Self.strings(tiler_slide_associated_names(opened)) {
            var width: Int64 = -1
            var height: Int64 = -1
            tiler_slide_associated_size(opened, name, &width, &height)
            if width > 0 && height > 0 { associated[name] = (Int(width), Int(height)) }
        }
        associatedImages = associated
        background = Self.colour(hex: properties["openslide.background-color"]) ?? (255, 255, 255)
        guard !levels.isEmpty, levels[0].width > 0, levels[0].height > 0, tiler_slide_error(opened) == nil else {
            let reason = tiler_slide_error(opened).map { String(cString: $0) } ?? "it has no pixels"
            tiler_slide_close(opened)
            throw SlideError(kind: .damaged, path: path, reason: reason)
        }
    }

    deinit { tiler_slide_close(handle) }

    /// The largest region one read may ask for, in pixels (64 megapixels: 256 MiB of ARGB and 192 MiB of RGB).
    public static let maxRegionPixels = 1 << 26

    /// The pixels of level `level` from (`x`, `y`) (level-0 pixels) over `width` × `height` level pixels, as straight
    /// RGB composited over ``background``. Areas outside the slide are the background too.
    ///
    /// - Throws: ``SlideError`` — `.damaged` with OpenSlide's message (the handle is then in its error state),
    ///   `.invalidArgument` for a level that does not exist or a region larger than ``maxRegionPixels``.
    /// - Complexity: what OpenSlide's decoding costs, plus O(width × height) for the conversion.
    public func rgb(level: Int, x: Int, y: Int, width: Int, height: Int) throws(SlideError) -> PixelBuffer {
        guard levels.indices.contains(level), width > 0, height > 0, width * height <= Self.maxRegionPixels else {
            throw SlideError(kind: .invalidArgument, path: path, reason: "no region \(width)×\(height) of level \(level)")
        }
        var scratch = [UInt32](repeating: 0, count: width * height)
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        let status = scratch.withUnsafeMutableBufferPointer { words in
            bytes.withUnsafeMutableBufferPointer { rgb in
                tiler_slide_read_rgb(
                    handle, Int32(level), Int64(x), Int64(y), Int32(width), Int32(height), background.red, background.green, background.blue,
                    words.baseAddress, rgb.baseAddress)
            }
        }
        guard status == 0 else { throw failure() }
        return PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: bytes)
    }

    /// Associated image `name` (``associatedImages``) as straight RGB over ``background``.
    ///
    /// - Throws: ``SlideError`` — `.invalidArgument` when there is no such image (or it is too large), `.damaged` with
    ///   OpenSlide's message.
    public func associatedRGB(_ name: String) throws(SlideError) -> PixelBuffer {
        guard let size = associatedImages[name], size.width * size.height <= Self.maxRegionPixels else {
            throw SlideError(kind: .invalidArgument, path: path, reason: "no associated image \(name)")
        }
        var scratch = [UInt32](repeating: 0, count: size.width * size.height)
        var bytes = [UInt8](repeating: 0, count: size.width * size.height * 3)
        let status = scratch.withUnsafeMutableBufferPointer { words in
            bytes.withUnsafeMutableBufferPointer { rgb in
                tiler_slide_read_associated_rgb(
                    handle, name, Int64(size.width), Int64(size.height), background.red, background.green, background.blue, words.baseAddress,
                    rgb.baseAddress)
            }
        }
        guard status == 0 else { throw failure() }
        return PixelBuffer(width: size.width, height: size.height, pixelFormat: .rgb, bytes: bytes)
    }

    /// Whether OpenSlide has put the handle in its error state (every later read fails).
    public var isFailed: Bool { tiler_slide_error(handle) != nil }

    /// OpenSlide's version, e.g. `"3.4.1"`.
    public static var libraryVersion: String { String(cString: tiler_slide_version()) }

    private func failure() -> SlideError {
        SlideError(kind: .damaged, path: path, reason: tiler_slide_error(handle).map { String(cString: $0) } ?? "read failed")
    }

    /// The strings of a NULL-terminated C array.
    private static func strings(_ array: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let array else { return [] }
        var result: [String] = []
        var index = 0
        while let item = array[index] {
            result.append(String(cString: item))
            index += 1
        }
        return result
    }

    /// `RRGGBB` as a colour.
    static func colour(hex: String?) -> (red: UInt8, green: UInt8, blue: UInt8)? {
        guard let hex, hex.utf8.count == 6, let value = UInt32(hex, radix: 16) else { return nil }
        return (UInt8(value >> 16), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF))
    }
}
