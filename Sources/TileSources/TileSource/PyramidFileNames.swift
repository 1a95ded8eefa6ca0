/// The names of files that may hold a pyramid read in place: what the catalog looks for and what a stored pyramid is
/// opened with (libtiff for the TIFF family, OpenSlide for the rest).
package enum PyramidFileNames {
    /// The extensions of files that may be pyramids read in place, longest first (`.ome.tif` before `.tif`): the
    /// TIFF family, then the whole-slide formats only OpenSlide reads (Hamamatsu, MIRAX, Leica, Ventana, Sakura).
    package static let storedPyramidExtensions = tiffExtensions + [".ndpi", ".vms", ".vmu", ".mrxs", ".scn", ".bif", ".svslide"]

    /// The extensions of TIFF-family files, which ``TIFFPyramid`` reads before OpenSlide is asked.
    package static let tiffExtensions = [".ome.tiff", ".ome.tif", ".tiff", ".tif", ".btf", ".tf8", ".svs"]

    /// Whether `path` ends in one of ``tiffExtensions`` (any case).
    package static func isTIFFFamily(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return tiffExtensions.contains { lowered.hasSuffix($0) }
    }

    /// `name` without the first of ``storedPyramidExtensions`` it ends in (any case), or nil when it ends in none.
    package static func storedPyramidStem(_ name: String) -> Substring? {
        let lowered = name.lowercased()
        for suffix in storedPyramidExtensions where lowered.hasSuffix(suffix) && name.utf8.count > suffix.utf8.count {
            return name.dropLast(suffix.count)
        }
        return nil
    }
}
