import Foundation
import Slicing

/// What `tiler slice` prints at the end: a line for people, or a JSON summary for scripts.
struct SliceReport {
    let input: String
    let summary: SliceSummary

    var text: String {
        let mib = Double(summary.bytesWritten) / 1_048_576
        let peak = summary.peakResidentBytes.map { String(format: ", peak memory %.0f MiB", Double($0) / 1_048_576) } ?? ""
        return String(
            format: "wrote %@: %d × %d, %d levels, %d tiles, %.1f MiB in %.2f s (%.0f MP/s%@)", summary.dziPath, summary.width,
            summary.height, summary.levels, summary.tiles, mib, summary.seconds, summary.megapixelsPerSecond, peak)
    }

    var json: String {
        get throws {
            let object: [String: Any] = [
                "input": input, "width": summary.width, "height": summary.height, "channels": summary.channels,
                "levels": summary.levels, "tiles": summary.tiles, "bytesWritten": summary.bytesWritten, "seconds": summary.seconds,
                "megapixelsPerSecond": summary.megapixelsPerSecond, "peakMemoryBytes": summary.peakResidentBytes ?? NSNull(),
                "dzi": summary.dziPath, "files": summary.filesPath,
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
            return String(decoding: data, as: UTF8.self)
        }
    }
}
