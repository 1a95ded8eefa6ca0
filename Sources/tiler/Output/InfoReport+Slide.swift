import Foundation
import ImageCodecs
import JSONText
import Slicing
import TileGeometry
import TileSources

extension InfoReport {
    /// What OpenSlide says of a slide, for `tiler info`: its reader, levels, objective, pixel size, scanned area,
    /// associated images and properties.
    struct SlideFacts {
        let slide: Slide
        /// OpenSlide's properties, as listed.
        let properties: PyramidProperties
        /// What the facts are read from: OpenSlide's properties and, for a TIFF OpenSlide gives no pixel size for
        /// (generic-tiff), its resolution tags as the server reads them (as `MicronsPerPixelX`/`Y`).
        let facts: PyramidProperties

        /// The slide at `path` when OpenSlide reads it (Aperio and generic TIFFs included), else nil.
        init?(path: String) {
            guard Slide.vendor(of: path) != nil, let slide = try? Slide(path: path) else { return nil }
            self.slide = slide
            properties = PyramidProperties(entries: slide.properties.sorted { $0.key < $1.key }.map { .init(name: $0.key, value: $0.value) })
            var facts = properties
            if properties.micronsPerPixel == nil, let mpp = TIFFPyramid.micronsPerPixel(openSlideProperties: slide.properties) {
                facts.entries += [.init(name: "MicronsPerPixelX", value: String(mpp.x)), .init(name: "MicronsPerPixelY", value: String(mpp.y))]
            }
            self.facts = facts
        }
    }

    /// The lines describing a slide.
    static func slideLines(_ facts: SlideFacts) -> [String] {
        let slide = facts.slide
        let finest = slide.levels.first.map { (width: $0.width, height: $0.height) } ?? (0, 0)
        let summary = ["\(slide.levels.count) level\(slide.levels.count == 1 ? "" : "s")"] + physicalFacts(facts.facts, size: finest)
        var lines = ["slide (OpenSlide's \(slide.vendor) reader): " + summary.joined(separator: ", ")]
        for (index, level) in slide.levels.enumerated() {
            lines.append("  slide level \(index): \(level.width) × \(level.height), downsample \(number(level.downsample))")
        }
        if let bounds = facts.facts.bounds {
            lines.append("  scanned area: \(bounds.width) × \(bounds.height) at \(bounds.x), \(bounds.y)")
        }
        if !slide.associatedImages.isEmpty {
            let images = slide.associatedImages.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.width) × \($0.value.height)" }
            lines.append("  associated images: " + images.joined(separator: ", "))
        }
        lines.append("  properties: \(slide.properties.count) (--json lists them)")
        return lines
    }

    /// The objective and the pixel size `properties` give, for an image of `size` pixels: "objective 20×",
    /// "0.25 × 0.25 µm a pixel (0.51 × 0.38 mm)", or "no physical pixel size".
    static func physicalFacts(_ properties: PyramidProperties, size: (width: Int, height: Int)) -> [String] {
        var facts: [String] = []
        if let power = properties.objectivePower { facts.append("objective \(number(power))×") }
        if let mpp = properties.micronsPerPixel {
            let extent = "\(millimetres(mpp.x * Double(size.width))) × \(millimetres(mpp.y * Double(size.height))) mm"
            facts.append("\(number(mpp.x)) × \(number(mpp.y)) µm a pixel (\(extent))")
        } else {
            facts.append("no physical pixel size")
        }
        return facts
    }

    /// The `records:` line of a folder pyramid or an SZI that records `recorded` of its source, `size` pixels.
    static func recordedLine(_ recorded: PyramidProperties, size: (width: Int, height: Int)) -> String {
        let count = "\(recorded.values.count) propert\(recorded.values.count == 1 ? "y" : "ies"); --json lists them"
        guard recorded.vendor != nil || recorded.micronsPerPixel != nil || recorded.objectivePower != nil else {
            return "  records: no slide's facts (\(count))"
        }
        let facts = (recorded.vendor.map { ["\($0) slide"] } ?? []) + physicalFacts(recorded, size: size)
        return "  records: " + facts.joined(separator: ", ") + " (\(count))"
    }

    /// Writes `vendor` and the facts `properties` give, in the shape the image list gives them
    /// (``JSONWriter/slideFacts(vendor:objectivePower:micronsPerPixel:bounds:unknownAsNull:)``), unknown ones as null.
    static func writeFacts(vendor: String?, _ properties: PyramidProperties, to out: inout JSONWriter) {
        out.slideFacts(
            vendor: vendor, objectivePower: properties.objectivePower, micronsPerPixel: properties.micronsPerPixel,
            bounds: properties.bounds, unknownAsNull: true)
    }

    /// Writes what a folder pyramid or an SZI keeps of its slide: `associated` (the kinds of the images it keeps) and
    /// `recorded` (`vendor`, the physical facts and every property; null when it records nothing).
    static func writeKept(associated: [String], recorded: PyramidProperties?, to out: inout JSONWriter) {
        out.key("associated")
        out.openArray()
        for kind in associated { out.value(kind) }
        out.closeArray()
        guard let recorded else {
            out.member("recorded", nil as String?)
            return
        }
        out.key("recorded")
        out.openObject()
        writeFacts(vendor: recorded.vendor, recorded, to: &out)
        writeProperties(recorded, to: &out)
        out.closeObject()
    }

    /// The `pyramid:` and `level N:` lines of a pyramid a container holds, finest level first, each saying how many
    /// of its tiles the container lacks (`present(level)`: how many it has).
    static func containerLevelLines(of pyramid: Pyramid, present: (Int) -> Int) -> [String] {
        var lines = ["pyramid: \(pyramid.levelCount) levels"]
        for level in stride(from: pyramid.maxLevel, through: 0, by: -1) {
            let size = pyramid.levelSize(level)
            let grid = pyramid.grid(level)
            let count = present(level)
            let missing = count == grid.columns * grid.rows ? "" : " (\(grid.columns * grid.rows - count) missing)"
            lines.append("  level \(level): \(size.width) × \(size.height), \(grid.columns) × \(grid.rows) tiles\(missing)")
        }
        return lines
    }

    /// Writes every property as a JSON object of strings.
    static func writeProperties(_ properties: PyramidProperties, to out: inout JSONWriter) {
        out.key("properties")
        out.openObject()
        for (name, value) in properties.values.sorted(by: { $0.key < $1.key }) { out.member(name, value) }
        out.closeObject()
    }

    /// Writes the slide as a JSON object.
    static func writeSlide(_ facts: SlideFacts, to out: inout JSONWriter) {
        let slide = facts.slide
        out.openObject()
        writeFacts(vendor: slide.vendor, facts.facts, to: &out)
        out.key("levels")
        out.openArray()
        for level in slide.levels {
            out.openObject()
            out.member("width", level.width)
            out.member("height", level.height)
            out.member("downsample", level.downsample)
            out.closeObject()
        }
        out.closeArray()
        out.key("associated")
        out.openObject()
        for (kind, size) in slide.associatedImages.sorted(by: { $0.key < $1.key }) {
            out.key(kind)
            out.openObject()
            out.member("width", size.width)
            out.member("height", size.height)
            out.closeObject()
        }
        out.closeObject()
        writeProperties(facts.properties, to: &out)
        out.closeObject()
    }

    /// `value` without a fraction when it has none, else as Swift prints it.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// Microns as millimetres, to 0.01 mm.
    private static func millimetres(_ microns: Double) -> String {
        String(format: "%.2f", microns / 1000)
    }
}
