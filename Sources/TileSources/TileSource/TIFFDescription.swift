import ImageCodecs
import Slicing

/// What is served of a pyramidal TIFF beyond its levels, read once when the catalog opens it: its facts (vendor,
/// objective, microns per pixel, scanned area, associated images), a sliced slide's recorded properties and the
/// associated images it keeps. Read from the TIFF's directories alone — wherever it lives, on disk or in a store —
/// and, for an Aperio SVS on disk, from OpenSlide's properties too (`extras`).
package struct TIFFDescription: Sendable {
    package let facts: ImageFacts
    /// A sliced slide's properties, recorded as the full-resolution image's ImageDescription (`tiler slice`'s TIFF,
    /// `vips tiffsave --properties`); nil when the description is not that XML.
    package let recorded: PyramidProperties?
    /// The associated images the TIFF keeps as directories of their own (a sliced slide's,
    /// ``TIFFPyramid/associatedImages``), by kind, sorted.
    package let keptAssociated: [String]

    /// The description of `tiff`, with what OpenSlide says of the same file (`extras`, an Aperio SVS's) where it was
    /// asked. O(directory text).
    package init(_ tiff: TIFFPyramid, extras: SlidePyramid?) {
        var facts = tiff.facts
        if let extras {
            facts.associated = extras.facts.associated
            facts.objectivePower = facts.objectivePower ?? extras.facts.objectivePower
            facts.micronsPerPixel = facts.micronsPerPixel ?? extras.facts.micronsPerPixel
        }
        let recorded = tiff.imageDescription.flatMap { PyramidProperties(imageDescription: $0) }
        if let recorded {
            facts.vendor = recorded.vendor ?? facts.vendor
            facts.objectivePower = facts.objectivePower ?? recorded.objectivePower
            // The slide's own figure, not its rounding into the resolution tags' rationals.
            facts.micronsPerPixel = recorded.micronsPerPixel ?? facts.micronsPerPixel
            facts.bounds = facts.bounds ?? recorded.bounds
        }
        keptAssociated = tiff.associatedImages.keys.sorted()
        if extras == nil { facts.associated = keptAssociated }
        self.facts = facts
        self.recorded = recorded
    }
}
