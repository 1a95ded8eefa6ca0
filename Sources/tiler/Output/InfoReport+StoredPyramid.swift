import ImageCodecs
import JSONText
import Slicing
import TileGeometry

extension InfoReport {
    /// Whether `tiler serve` passes the tiles of stored `level` through untouched: JPEG it can hand out as stored,
    /// 256-pixel tiles, the size of a Deep Zoom level of the finest (halved, rounded up), and no colour profile to
    /// convert from (none, or an sRGB one), as `StoredTiles` decides per tile; edge tiles, stored padded, are always made.
    static func passesThrough(_ level: TIFFPyramid.Level, finest: TIFFPyramid.Level, profile: [UInt8]?) -> Bool {
        guard level.jpegPassThrough, level.tileWidth == 256, level.tileHeight == 256 else { return false }
        if let profile, !SRGBProfile.isEquivalent(profile, channels: level.channels) { return false }
        return (0...30).contains { k in
            (finest.width + (1 << k) - 1) >> k == level.width && (finest.height + (1 << k) - 1) >> k == level.height
        }
    }

    /// The lines describing a pyramidal TIFF's stored levels, and the associated images it keeps.
    static func storedPyramidLines(_ stored: TIFFPyramid) -> [String] {
        guard let finest = stored.levels.first else { return [] }
        var lines = [
            "stored pyramid (\(stored.layout.rawValue) layout\(stored.bigTIFF ? ", BigTIFF" : "")): \(stored.levels.count) level\(stored.levels.count == 1 ? "" : "s"), served in place"
        ]
        if let recorded = stored.imageDescription.flatMap({ PyramidProperties(imageDescription: $0) }) {
            lines.append(recordedLine(recorded, size: (finest.width, finest.height)))
        }
        let kept = stored.associatedImages.sorted { $0.key < $1.key }
        if !kept.isEmpty {
            lines.append("  associated images: " + kept.map { "\($0.key) \($0.value.width) × \($0.value.height)" }.joined(separator: ", "))
        }
        for (index, level) in stored.levels.enumerated() {
            let through = passesThrough(level, finest: finest, profile: stored.iccProfile)
            lines.append(
                "  stored level \(index): \(level.width) × \(level.height), \(level.columns) × \(level.rows) tiles of \(level.tileWidth) × "
                    + "\(level.tileHeight), compression \(level.compression), "
                    + (through ? "full tiles passed through as stored" : "tiles made from the stored pixels"))
        }
        return lines
    }

    /// Writes the layout, the kinds of the associated images kept and the stored levels as a JSON object.
    static func writeStoredPyramid(_ stored: TIFFPyramid, to out: inout JSONWriter) {
        guard let finest = stored.levels.first else { return }
        out.openObject()
        out.member("layout", stored.layout.rawValue)
        out.member("bigTIFF", stored.bigTIFF)
        out.member("iccProfile", stored.iccProfile != nil)
        out.key("associated")
        out.openArray()
        for kind in stored.associatedImages.keys.sorted() { out.value(kind) }
        out.closeArray()
        out.key("levels")
        out.openArray()
        for level in stored.levels {
            out.openObject()
            out.member("width", level.width)
            out.member("height", level.height)
            out.member("tileWidth", level.tileWidth)
            out.member("tileHeight", level.tileHeight)
            out.member("compression", level.compression)
            out.member("passThrough", passesThrough(level, finest: finest, profile: stored.iccProfile))
            out.closeObject()
        }
        out.closeArray()
        out.closeObject()
    }
}
