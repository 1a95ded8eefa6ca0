import Archive
import Foundation
import JSONText
import Slicing
import TileGeometry

/// What `tiler info` prints for an SZI: the container, its descriptor, each level's tiles (present of expected), and
/// how the server sends them. Reads the central directory and the descriptor, no tile.
struct ArchiveReport {
    let path: String
    let archive: SZIArchive
    /// What the archive records of the slide it was sliced from (its `vips-properties.xml` and `scan-properties.xml`),
    /// nil when it records nothing or what it records does not parse.
    let recorded: PyramidProperties?
    /// The property files the archive holds and ``recorded`` was read from.
    private let propertyFiles: [String]

    /// Whether `path` looks like an SZI: named `*.szi`, or starting with a ZIP local file header.
    static func isArchive(_ path: String) -> Bool {
        if path.lowercased().hasSuffix(".szi") { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 4)) == Data([0x50, 0x4b, 0x03, 0x04])
    }

    /// Opens and checks the archive at `path`.
    ///
    /// - Throws: a ``CommandFailure`` with the archive's one-line refusal.
    init(path: String) throws {
        self.path = path
        do {
            archive = try SZIArchive(path: path)
        } catch {
            throw CommandFailure("not a servable SZI: \(error.message)")
        }
        let files = [("vips-properties.xml", archive.propertiesXML), ("scan-properties.xml", archive.scanPropertiesXML)].compactMap { file in
            file.1.map { (name: file.0, bytes: $0) }
        }
        propertyFiles = files.map(\.name)
        recorded = files.isEmpty ? nil : try? PyramidProperties(xmlFiles: files.map(\.bytes))
    }

    private var pyramid: Pyramid { archive.descriptor.pyramid }

    /// Entries neither the descriptor, a tile, a properties file read nor an associated image kept.
    private var ignored: Int { archive.otherEntries - propertyFiles.count - archive.associated.count }

    /// Tiles at `level` present in the archive.
    private func present(_ level: Int) -> Int {
        let grid = pyramid.grid(level)
        var count = 0
        for row in 0..<grid.rows {
            for column in 0..<grid.columns where archive.tile(level: level, column: column, row: row) != nil { count += 1 }
        }
        return count
    }

    var text: String {
        let descriptor = archive.descriptor
        let expected = PyramidBuilder.tileCount(of: pyramid)
        var lines = [
            "\(path): SZI (stored ZIP), \(ArchiveReport.bytes(archive.fileSize)), \(descriptor.width) × \(descriptor.height)",
            "  holds: \(archive.topFolder)/\(archive.stem).dzi and \(archive.tileCount) of \(expected) tiles"
                + (propertyFiles.isEmpty ? "" : ", " + propertyFiles.joined(separator: " and "))
                + (archive.associated.isEmpty ? "" : ", associated images " + archive.associated.keys.sorted().joined(separator: ", "))
                + (ignored > 0 ? ", \(ignored) other entr\(ignored == 1 ? "y" : "ies") (ignored)" : ""),
            "  tiles: \(descriptor.format), \(descriptor.tileSize)-px, overlap \(descriptor.overlap)",
            "  served: in place by tiler serve, every tile sent as stored (sendfile from its offset in the archive)",
        ]
        if let recorded {
            lines.append(InfoReport.recordedLine(recorded, size: (descriptor.width, descriptor.height)))
        } else if !propertyFiles.isEmpty {
            lines.append("  records: nothing readable (its properties do not parse; tiler serve leaves them out)")
        }
        lines += InfoReport.containerLevelLines(of: pyramid, present: present)
        return lines.joined(separator: "\n") + "\n"
    }

    var json: String {
        JSONWriter.text { out in
            out.openObject()
            out.member("path", path)
            out.member("container", "szi")
            out.member("fileBytes", Int(archive.fileSize))
            out.member("descriptor", "\(archive.topFolder)/\(archive.stem).dzi")
            out.member("format", archive.descriptor.format)
            out.member("width", archive.descriptor.width)
            out.member("height", archive.descriptor.height)
            out.member("tileSize", archive.descriptor.tileSize)
            out.member("overlap", archive.descriptor.overlap)
            out.member("tiles", archive.tileCount)
            out.member("otherEntries", archive.otherEntries)
            out.member("passThrough", true)
            InfoReport.writeKept(associated: archive.associated.keys.sorted(), recorded: recorded, to: &out)
            InfoReport.writeLevels(of: pyramid, present: present, to: &out)
            out.closeObject()
        } + "\n"
    }

    static func bytes(_ count: UInt64) -> String {
        let mib = Double(count) / 1_048_576
        return mib >= 1024 ? String(format: "%.1f GiB", mib / 1024) : String(format: "%.1f MiB", mib)
    }
}
