import Foundation
import ImageCodecs
import TileGeometry

/// What `tiler info` prints: header facts and the pyramid, as text or JSON.
struct InfoReport {
    let path: String
    let header: ImageHeader
    let pyramid: Pyramid
    /// Rows decoded by `--verify`, or nil when not verified.
    let verifiedRows: Int?

    var tileCount: Int { (0...pyramid.maxLevel).reduce(0) { $0 + pyramid.grid($1).columns * pyramid.grid($1).rows } }

    var text: String {
        var lines: [String] = []
        let name = header.tiff?.bigTIFF == true ? "BigTIFF" : header.format.displayName
        var facts = ["\(header.bitDepth)-bit \(header.colorType)"]
        if let subsampling = header.chromaSubsampling { facts.append(subsampling) }
        if header.format == .jpeg { facts.append(header.progressive ? "progressive" : "baseline") }
        if let orientation = header.orientation {
            facts.append(header.format == .tiff ? "orientation \(orientation)" : "EXIF orientation \(orientation)")
        }
        if let icc = header.iccProfile { facts.append("ICC profile (\(icc.count) bytes)") }
        lines.append("\(path): \(name), \(header.width) × \(header.height), \(facts.joined(separator: ", "))")
        if let tiff = header.tiff { lines += Self.tiffLines(tiff) }
        lines.append("  decodes to: \(header.pixelFormat.name), \(header.channels) channel\(header.channels == 1 ? "" : "s"), 8-bit")
        if header.interlaced {
            let bytes = header.width * header.height * header.channels
            lines.append("  interlaced (Adam7): cannot stream; decoding holds the whole image in memory (\(Self.bytes(bytes)))")
        } else {
            lines.append("  streams: yes, strip by strip in memory bounded by the width")
        }
        if let rows = verifiedRows { lines.append("  verified: all \(rows) rows decode cleanly") }
        lines.append("pyramid (\(pyramid.tileSize)-px tiles, overlap 0): \(pyramid.levelCount) levels, \(tileCount) tiles")
        for level in stride(from: pyramid.maxLevel, through: 0, by: -1) {
            let size = pyramid.levelSize(level)
            let grid = pyramid.grid(level)
            lines.append("  level \(level): \(size.width) × \(size.height), \(grid.columns) × \(grid.rows) tiles")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    var json: String {
        let levels: [[String: Any]] = (0...pyramid.maxLevel).map { level in
            let size = pyramid.levelSize(level)
            let grid = pyramid.grid(level)
            return ["level": level, "width": size.width, "height": size.height, "columns": grid.columns, "rows": grid.rows]
        }
        var object: [String: Any] = [
            "path": path, "format": header.format.rawValue, "width": header.width, "height": header.height,
            "channels": header.channels, "pixelFormat": header.pixelFormat.name, "bitDepth": header.bitDepth,
            "colorType": header.colorType, "interlaced": header.interlaced, "progressive": header.progressive,
            "streamable": header.canStream,
            "chromaSubsampling": header.chromaSubsampling ?? NSNull(), "orientation": header.orientation ?? NSNull(),
            "pyramid": [
                "tileSize": pyramid.tileSize, "overlap": pyramid.overlap, "maxLevel": pyramid.maxLevel,
                "levelCount": pyramid.levelCount, "tiles": tileCount, "levels": levels,
            ] as [String: Any],
        ]
        if let rows = verifiedRows { object["verifiedRows"] = rows }
        if let tiff = header.tiff { object["tiff"] = Self.tiffObject(tiff) }
        if let icc = header.iccProfile { object["iccProfileBytes"] = icc.count }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    static func bytes(_ count: Int) -> String {
        let mib = Double(count) / 1_048_576
        return mib >= 1024 ? String(format: "%.1f GiB", mib / 1024) : String(format: "%.1f MiB", mib)
    }
}
