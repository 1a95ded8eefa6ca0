import Foundation
import ImageCodecs

/// What a pyramid records about its source beyond the pixels, as libvips' `dzsave` records it: a slide's properties
/// (vendor, objective, microns per pixel, the scanned area, and every other property OpenSlide reports), so that a
/// slide sliced to a folder, an SZI or a TIFF keeps its scale bar and its facts.
///
/// Written as `NAME_files/vips-properties.xml` (folder and SZI, dzsave's file and form) and, in an SZI, as the SZI
/// format's `scan-properties.xml` beside the descriptor; a TIFF records the microns per pixel in its resolution
/// tags. Read back from either XML file, whoever wrote it: `tiler serve` lists what a `vips dzsave` pyramid of a
/// slide records as it lists a slide's own.
public struct PyramidProperties: Sendable, Equatable {
    /// One property: its name, its type in libvips' terms (`gint`, `gdouble`, `VipsRefString`) and its value as text.
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var type: String
        public var value: String

        public init(name: String, type: String = "VipsRefString", value: String) {
            self.name = name
            self.type = type
            self.value = value
        }
    }

    /// The properties in file order.
    public var entries: [Entry]

    /// Properties in the given order.
    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// What `dzsave` records for a slide of `width` × `height` pixels and `bands` channels: the image's size and
    /// bands, then every one of `properties` (OpenSlide's), sorted by name.
    public init(width: Int, height: Int, bands: Int, slideProperties properties: [String: String]) {
        var entries = [
            Entry(name: "width", type: "gint", value: String(width)), Entry(name: "height", type: "gint", value: String(height)),
            Entry(name: "bands", type: "gint", value: String(bands)),
        ]
        for (name, value) in properties.sorted(by: { $0.key < $1.key }) {
            entries.append(Entry(name: name, value: value))
        }
        self.entries = entries
    }

    /// The properties of the slide at `path` worth recording with its pyramid (``init(width:height:bands:slideProperties:)``),
    /// or nil when OpenSlide does not read the file (a photograph, a plain TIFF) or it has no property of a slide.
    ///
    /// OpenSlide reads Aperio and generic tiled TIFFs too, which ``ImageDecoder`` reads with its own TIFF decoder:
    /// their properties come from OpenSlide all the same. Only page 0 of a file is a slide's full resolution.
    public static func ofSlide(path: String, width: Int, height: Int, bands: Int) -> PyramidProperties? {
        slide(at: path, width: width, height: height).map {
            PyramidProperties(width: width, height: height, bands: bands, slideProperties: $0.properties)
        }
    }

    /// The slide at `path`, open, when OpenSlide reads the file and its full resolution is `width` × `height`.
    static func slide(at path: String, width: Int, height: Int) -> Slide? {
        guard Slide.vendor(of: path) != nil, let slide = try? Slide(path: path) else { return nil }
        return slide.levels.first.map({ $0.width == width && $0.height == height }) ?? false ? slide : nil
    }

    /// The first value of property `name`.
    public subscript(name: String) -> String? {
        entries.first { $0.name == name }?.value
    }

    /// Every property by name (the first of a repeated name).
    public var values: [String: String] {
        var values: [String: String] = [:]
        for entry in entries where values[entry.name] == nil { values[entry.name] = entry.value }
        return values
    }

    /// Microns per full-resolution pixel, across and down: OpenSlide's `openslide.mpp-x`/`-y`, else the SZI form's
    /// `MicronsPerPixelX`/`Y`, else Aperio's `aperio.MPP`; nil when none is a positive number.
    public var micronsPerPixel: (x: Double, y: Double)? {
        for (x, y) in [("openslide.mpp-x", "openslide.mpp-y"), ("MicronsPerPixelX", "MicronsPerPixelY"), ("aperio.MPP", "aperio.MPP")] {
            if let across = self[x].flatMap(Double.init), let down = self[y].flatMap(Double.init), across > 0, down > 0, across.isFinite,
                down.isFinite
            {
                return (across, down)
            }
        }
        return nil
    }

    /// The scanner's vendor: `openslide.vendor`, else the SZI form's `Vendor`.
    public var vendor: String? { self["openslide.vendor"] ?? self["Vendor"] }

    /// The scanned area in full-resolution pixels (`openslide.bounds-*`), when all four are there and it is not empty.
    public var bounds: (x: Int, y: Int, width: Int, height: Int)? { Self.bounds(in: values) }

    /// ``bounds`` of OpenSlide's `properties` by name.
    public static func bounds(in properties: [String: String]) -> (x: Int, y: Int, width: Int, height: Int)? {
        let bound = { (name: String) in properties["openslide.bounds-" + name].flatMap { Int($0) } }
        guard let x = bound("x"), let y = bound("y"), let width = bound("width"), let height = bound("height"), width > 0, height > 0 else {
            return nil
        }
        return (x, y, width, height)
    }

    /// The objective's power: `openslide.objective-power`, else the SZI form's `ObjectiveMagnification`.
    public var objectivePower: Double? {
        (self["openslide.objective-power"] ?? self["ObjectiveMagnification"]).flatMap(Double.init).flatMap { $0 > 0 && $0.isFinite ? $0 : nil }
    }
}
