import Foundation
import ImageCodecs
import JSONText
import Slicing
import TileGeometry

/// What `tiler info` prints: header facts, orientation and colour, and the pyramid, as text or JSON.
struct InfoReport {
    let path: String
    let header: ImageHeader
    let pyramid: Pyramid
    /// Rows decoded by `--verify`, or nil when not verified.
    let verifiedRows: Int?
    /// The pyramid a TIFF stores, when it is one `tiler serve` reads in place.
    var stored: TIFFPyramid? = nil
    /// What OpenSlide says of the file, when it reads it as a slide.
    var slide: SlideFacts? = nil

    var tileCount: Int { (0...pyramid.maxLevel).reduce(0) { $0 + pyramid.grid($1).columns * pyramid.grid($1).rows } }

    var orientation: Orientation { header.orientation.flatMap(Orientation.init(exif:)) ?? .up }

    var text: String {
        var lines: [String] = []
        let name = header.tiff?.bigTIFF == true ? "BigTIFF" : header.format.displayName
        var facts = ["\(header.bitDepth)-bit \(header.colorType)"]
        if let subsampling = header.chromaSubsampling { facts.append(subsampling) }
        if header.format == .jpeg { facts.append(header.progressive ? "progressive" : "baseline") }
        lines.append("\(path): \(name), \(header.width) × \(header.height) stored, \(facts.joined(separator: ", "))")
        if let tiff = header.tiff { lines += Self.tiffLines(tiff) }
        let displayed = header.displaySize
        if header.orientation != nil {
            let source = header.format == .tiff ? "TIFF tag" : "EXIF"
            lines.append("  orientation: \(source) \(orientation.description); displayed \(displayed.width) × \(displayed.height)")
        } else {
            lines.append("  orientation: none (stored upright)")
        }
        lines.append("  colour: \(header.colourTag.summary)")
        if let conversion = header.colourConversion { lines.append("  converts: \(conversion)") }
        lines.append("  decodes to: \(header.pixelFormat.name), \(header.channels) channel\(header.channels == 1 ? "" : "s"), 8-bit")
        if !header.canStream {
            let bytes = header.width * header.height * header.channels
            let why = header.interlaced ? "interlaced (Adam7)" : "WebP (libwebp decodes it whole)"
            lines.append("  \(why): cannot stream; decoding holds the whole image in memory (\(Self.bytes(bytes)))")
        } else {
            lines.append("  streams: yes, strip by strip in memory bounded by the width")
        }
        if let rows = verifiedRows { lines.append("  verified: all \(rows) rows decode cleanly") }
        if let slide { lines += Self.slideLines(slide) }
        if let stored { lines += Self.storedPyramidLines(stored) }
        lines.append("pyramid (\(pyramid.tileSize)-px tiles, overlap 0): \(pyramid.levelCount) levels, \(tileCount) tiles")
        for level in stride(from: pyramid.maxLevel, through: 0, by: -1) {
            let size = pyramid.levelSize(level)
            let grid = pyramid.grid(level)
            lines.append("  level \(level): \(size.width) × \(size.height), \(grid.columns) × \(grid.rows) tiles")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    var json: String {
        JSONWriter.text { out in
            out.openObject()
            out.member("path", path)
            out.member("format", header.format.rawValue)
            out.member("width", header.displaySize.width)
            out.member("height", header.displaySize.height)
            out.member("storedWidth", header.width)
            out.member("storedHeight", header.height)
            out.member("orientation", header.orientation)
            out.member("colour", header.colourTag.summary)
            if case .iccProfile(let profile) = header.colourTag {
                out.member("iccDescription", profile.description)
            } else {
                out.member("iccDescription", nil as String?)
            }
            out.member("colourConversion", header.colourConversion)
            out.member("channels", header.channels)
            out.member("pixelFormat", header.pixelFormat.name)
            out.member("bitDepth", header.bitDepth)
            out.member("colorType", header.colorType)
            out.member("interlaced", header.interlaced)
            out.member("progressive", header.progressive)
            out.member("streamable", header.canStream)
            out.member("chromaSubsampling", header.chromaSubsampling)
            if let rows = verifiedRows { out.member("verifiedRows", rows) }
            if let tiff = header.tiff {
                out.key("tiff")
                Self.writeTIFF(tiff, to: &out)
            }
            if let slide {
                out.key("slide")
                Self.writeSlide(slide, to: &out)
            }
            if let stored {
                out.key("storedPyramid")
                Self.writeStoredPyramid(stored, to: &out)
            }
            out.key("pyramid")
            out.openObject()
            out.member("tileSize", pyramid.tileSize)
            out.member("overlap", pyramid.overlap)
            out.member("maxLevel", pyramid.maxLevel)
            out.member("levelCount", pyramid.levelCount)
            out.member("tiles", tileCount)
            Self.writeLevels(of: pyramid, to: &out)
            out.closeObject()
            out.closeObject()
        } + "\n"
    }

    /// Writes the `levels` member: each level's size and tile grid, and, with `present`, how many of its tiles a
    /// container holds.
    static func writeLevels(of pyramid: Pyramid, present: ((Int) -> Int)? = nil, to out: inout JSONWriter) {
        out.key("levels")
        out.openArray()
        for level in 0...pyramid.maxLevel {
            let size = pyramid.levelSize(level)
            let grid = pyramid.grid(level)
            out.openObject()
            out.member("level", level)
            out.member("width", size.width)
            out.member("height", size.height)
            out.member("columns", grid.columns)
            out.member("rows", grid.rows)
            if let present { out.member("tiles", present(level)) }
            out.closeObject()
        }
        out.closeArray()
    }

    static func bytes(_ count: Int) -> String {
        let mib = Double(count) / 1_048_576
        return mib >= 1024 ? String(format: "%.1f GiB", mib / 1024) : String(format: "%.1f MiB", mib)
    }
}
