import ImageCodecs
import Slicing

/// What a pyramid stored in one file says about itself beyond its pixels: the scanner's vendor and objective, the
/// physical size of a pixel, the scanned area, and the associated images (a slide's label, macro and thumbnail).
/// Listed in `/api/images`; for a folder pyramid or an SZI, what it records of the slide it was sliced from.
package struct ImageFacts: Sendable {
    /// OpenSlide's format name (`aperio`, `hamamatsu`, `mirax`, …), or `tiff` for a TIFF the TIFF source reads.
    package var vendor: String?
    /// The scanner's objective power (`openslide.objective-power`, Aperio's `AppMag`).
    package var objectivePower: Double?
    /// Microns per pixel of the full resolution, across and down.
    package var micronsPerPixel: (x: Double, y: Double)?
    /// The scanned area in full-resolution pixels (`openslide.bounds-*`), where the slide has one.
    package var bounds: (x: Int, y: Int, width: Int, height: Int)?
    /// The associated images' names, sorted.
    package var associated: [String] = []

    /// The facts of a slide from OpenSlide's properties.
    package init(vendor: String, properties: [String: String], associated: [String]) {
        self.vendor = vendor
        objectivePower = properties["openslide.objective-power"].flatMap(Double.init)
        if let x = properties["openslide.mpp-x"].flatMap(Double.init), let y = properties["openslide.mpp-y"].flatMap(Double.init), x > 0, y > 0 {
            micronsPerPixel = (x, y)
        } else if let tags = TIFFPyramid.micronsPerPixel(openSlideProperties: properties) {
            // A TIFF OpenSlide reads as generic-tiff (separate planes, say) says no mpp: its resolution tags do, as the
            // TIFF source reads them.
            micronsPerPixel = tags
        }
        bounds = PyramidProperties.bounds(in: properties)
        self.associated = associated.sorted()
    }

    /// The facts of a TIFF read by the TIFF source: microns per pixel from Aperio's `MPP` field, else OME-XML's
    /// `PhysicalSizeX`/`Y`, else the resolution tags; Aperio's `AppMag` as the objective power.
    package init(tiff: TIFFPyramid) {
        vendor = tiff.layout == .aperio ? "aperio" : "tiff"
        let description = tiff.imageDescription ?? ""
        if tiff.layout == .aperio {
            let fields = Self.aperioFields(description)
            objectivePower = fields["AppMag"].flatMap(Double.init)
            if let mpp = fields["MPP"].flatMap(Double.init), mpp > 0 { micronsPerPixel = (mpp, mpp) }
        } else if description.contains("<OME"), let x = Self.omeSize(description, axis: "X"), let y = Self.omeSize(description, axis: "Y") {
            micronsPerPixel = (x, y)
        }
        if micronsPerPixel == nil { micronsPerPixel = tiff.tagMicronsPerPixel }
    }

    /// What a pyramid records of the slide it was sliced from (``PyramidProperties``): vendor, objective, microns per
    /// pixel and the scanned area, those it records. No associated images: the caller adds those the pyramid keeps.
    package init(recorded properties: PyramidProperties) {
        vendor = properties.vendor
        objectivePower = properties.objectivePower
        micronsPerPixel = properties.micronsPerPixel
        bounds = properties.bounds
    }

    /// None: a folder pyramid that records nothing.
    package init() {}

    /// Aperio's ImageDescription `Aperio Image Library …|AppMag = 20|MPP = 0.499|…` as name → value.
    package static func aperioFields(_ description: String) -> [String: String] {
        var fields: [String: String] = [:]
        for part in description.split(separator: "|") {
            let pair = part.split(separator: "=", maxSplits: 1)
            guard pair.count == 2 else { continue }
            fields[pair[0].trimmingSpaces] = pair[1].trimmingSpaces
        }
        return fields
    }

    /// The first `Pixels` element's `PhysicalSize{axis}` in microns (its unit `PhysicalSize{axis}Unit`, µm by default).
    package static func omeSize(_ xml: String, axis: String) -> Double? {
        guard let pixels = xml.range(of: "<Pixels ") ?? xml.range(of: ":Pixels "), let end = xml[pixels.upperBound...].firstIndex(of: ">")
        else { return nil }
        let element = xml[pixels.upperBound..<end]
        guard let value = attribute(element, "PhysicalSize" + axis).flatMap(Double.init), value > 0 else { return nil }
        let scale: [String: Double] = ["µm": 1, "um": 1, "nm": 0.001, "mm": 1000, "cm": 10_000, "m": 1_000_000, "Å": 0.0001]
        guard let factor = scale[attribute(element, "PhysicalSize" + axis + "Unit") ?? "µm"] else { return nil }
        return value * factor
    }

    /// The value of attribute `name` in an element's text.
    private static func attribute(_ element: Substring, _ name: String) -> String? {
        guard let start = element.range(of: " " + name + "=\"") else { return nil }
        let rest = element[start.upperBound...]
        guard let close = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<close])
    }
}

extension Substring {
    /// Without leading and trailing spaces.
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
