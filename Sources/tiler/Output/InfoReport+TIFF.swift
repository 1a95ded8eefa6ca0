import ImageCodecs

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

    /// The TIFF facts as a JSON object.
    static func tiffObject(_ tiff: TIFFLayout) -> [String: Any] {
        var object: [String: Any] = [
            "layout": tiff.tiled ? "tiles" : "strips", "compression": tiff.compression, "compressionName": tiff.compressionName,
            "predictor": tiff.predictor, "planarConfiguration": tiff.separatePlanes ? "separate" : "contiguous",
            "samplesPerPixel": tiff.samplesPerPixel, "photometric": tiff.photometric, "bigTIFF": tiff.bigTIFF, "page": tiff.page,
            "pages": tiff.pageCount, "reducedResolution": tiff.reducedResolution, "subIFDs": tiff.subIFDCount,
            "readPath": tiff.readPath.rawValue,
        ]
        if let width = tiff.tileWidth, let height = tiff.tileHeight {
            object["tileWidth"] = width
            object["tileHeight"] = height
        }
        if let rows = tiff.rowsPerStrip { object["rowsPerStrip"] = rows }
        if let alpha = tiff.alpha { object["alpha"] = alpha }
        return object
    }
}
