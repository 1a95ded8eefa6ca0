import ImageCodecs
import JSONText
import TileGeometry

extension InfoReport {
    /// The TIFF-only lines: layout, compression, planes, pages.
    static func tiffLines(_ tiff: TIFFLayout) -> [String] {
        var lines: [String] = []
        let layout =
            tiff.tiled
            ? "tiles of \(tiff.tileWidth ?? 0) × \(tiff.tileHeight ?? 0)"
            : "strips of \(tiff.rowsPerStrip ?? 0) row\(tiff.rowsPerStrip == 1 ? "" : "s")"
        var storage = "\(layout), \(tiff.compressionName) compression (\(tiff.compression))"
        if tiff.predictor != 1 { storage += ", predictor \(tiff.predictor)" }
        storage += tiff.separatePlanes ? ", separate planes" : ", contiguous"
        storage += ", \(tiff.samplesPerPixel) sample\(tiff.samplesPerPixel == 1 ? "" : "s") per pixel"
        if let alpha = tiff.alpha { storage += ", \(alpha) alpha" }
        lines.append("  stored as: \(storage)")
        var pages = "  page \(tiff.page) of \(tiff.pageCount) (pages count from 0; --page N reads another)"
        if tiff.reducedResolution { pages += ", a reduced-resolution page" }
        if tiff.subIFDCount > 0 { pages += ", \(tiff.subIFDCount) reduced-resolution SubIFD\(tiff.subIFDCount == 1 ? "" : "s") not read" }
        lines.append(pages)
        return lines
    }

    /// Writes the TIFF facts as a JSON object.
    static func writeTIFF(_ tiff: TIFFLayout, to out: inout JSONWriter) {
        out.openObject()
        out.member("layout", tiff.tiled ? "tiles" : "strips")
        out.member("tileWidth", tiff.tileWidth)
        out.member("tileHeight", tiff.tileHeight)
        out.member("rowsPerStrip", tiff.rowsPerStrip)
        out.member("compression", tiff.compression)
        out.member("compressionName", tiff.compressionName)
        out.member("predictor", tiff.predictor)
        out.member("planarConfiguration", tiff.separatePlanes ? "separate" : "contiguous")
        out.member("samplesPerPixel", tiff.samplesPerPixel)
        out.member("photometric", tiff.photometric)
        out.member("alpha", tiff.alpha)
        out.member("bigTIFF", tiff.bigTIFF)
        out.member("page", tiff.page)
        out.member("pages", tiff.pageCount)
        out.member("reducedResolution", tiff.reducedResolution)
        out.member("subIFDs", tiff.subIFDCount)
        out.member("readPath", tiff.readPath.rawValue)
        out.closeObject()
    }
}
