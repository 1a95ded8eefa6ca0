import Foundation
import ImageCodecs
import JSONText
import Slicing
import TileGeometry

/// What `tiler slice` prints at the end: a line for people, or a JSON summary for scripts.
struct SliceReport {
    let input: String
    let summary: SliceSummary
    let header: ImageHeader
    let autorotate: Bool
    let keptColour: Bool
    /// For a slice into a bucket: the bytes sent to the store before the slice ended (the rest went after).
    var sentWhileSlicing: Int? = nil

    /// The orientation applied, in words, or nil when the rows were used as stored.
    var orientation: String? {
        guard autorotate, let value = header.orientation, value != 1, let orientation = Orientation(exif: value) else { return nil }
        return orientation.description
    }

    /// What happened to the colours, in words.
    var colour: String {
        if keptColour && header.colourTag != .untagged {
            return "kept as stored (--keep-colour): the tiles carry the source's numbers, untagged; found \(header.colourTag.summary)"
        }
        if let conversion = header.colourConversion { return conversion }
        return header.colourTag == .untagged ? "untouched (no colour information: taken as sRGB)" : "untouched (\(header.colourTag.summary))"
    }

    var text: String {
        let mib = Double(summary.bytesWritten) / 1_048_576
        let peak = summary.peakResidentBytes.map { String(format: ", peak memory %.0f MiB", Double($0) / 1_048_576) } ?? ""
        var line = String(
            format: "wrote %@: %d × %d, %d levels, %d tiles, %.1f MiB in %.2f s (%.0f MP/s%@)", summary.path, summary.width,
            summary.height, summary.levels, summary.tiles, mib, summary.seconds, summary.megapixelsPerSecond, peak)
        if let orientation { line += "\n  orientation \(orientation) applied" }
        if let sentWhileSlicing, let fileBytes = summary.fileBytes {
            let (sent, whole) = (Double(sentWhileSlicing) / 1_048_576, Double(fileBytes) / 1_048_576)
            line += String(format: "\n  uploaded while slicing: %.1f of %.1f MiB", sent, whole)
        }
        line += "\n  colour: \(colour)"
        return line
    }

    var json: String {
        JSONWriter.text { out in
            out.openObject()
            out.member("input", input)
            out.member("width", summary.width)
            out.member("height", summary.height)
            out.member("storedWidth", header.width)
            out.member("storedHeight", header.height)
            out.member("orientation", header.orientation)
            out.member("orientationApplied", orientation != nil)
            out.member("colour", colour)
            out.member("colourConverted", header.colourConversion != nil && !keptColour)
            out.member("channels", summary.channels)
            out.member("levels", summary.levels)
            out.member("tiles", summary.tiles)
            out.member("bytesWritten", summary.bytesWritten)
            out.member("seconds", summary.seconds)
            out.member("megapixelsPerSecond", summary.megapixelsPerSecond)
            out.member("peakMemoryBytes", summary.peakResidentBytes)
            out.member("container", summary.container)
            out.member("path", summary.path)
            if let fileBytes = summary.fileBytes {
                out.member("fileBytes", fileBytes)
                if let sentWhileSlicing { out.member("uploadedWhileSlicingBytes", sentWhileSlicing) }
            } else {
                out.member("dzi", summary.dziPath)
                out.member("files", summary.filesPath)
            }
            out.closeObject()
        }
    }
}
