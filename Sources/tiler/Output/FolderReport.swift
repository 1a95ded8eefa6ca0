import Foundation
import JSONText
import Slicing
import TileGeometry

/// What `tiler info` prints for a folder pyramid (`NAME.dzi` beside `NAME_files/`): the descriptor, each level's tiles
/// (present of expected) and their bytes, and what the pyramid records of its source. Reads the descriptor, lists the
/// level folders and reads each tile's size, no tile's bytes.
struct FolderReport {
    let path: String
    let descriptor: DZIDescriptor
    /// Tiles present per level, and their bytes.
    private let present: [Int]
    private let bytes: Int
    /// Files in the level folders that are not tiles of the pyramid.
    private let strays: Int
    /// `NAME_files/vips-properties.xml`, parsed; nil when absent or unreadable (``propertiesProblem`` says which).
    let recorded: PyramidProperties?
    private let propertiesProblem: String?
    /// The associated images a sliced slide's pyramid keeps (`NAME_files/associated/KIND.jpg`).
    private let associated: [String]

    /// Whether `path` names a Deep Zoom descriptor (`*.dzi`).
    static func isDescriptor(_ path: String) -> Bool {
        path.lowercased().hasSuffix(".dzi")
    }

    /// Reads the descriptor at `path` and lists its tiles folder.
    ///
    /// - Throws: a ``CommandFailure`` naming what is wrong: no descriptor, not a descriptor, no tiles folder.
    init(path: String) throws {
        self.path = path
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CommandFailure("cannot read \(path): \((error as NSError).localizedDescription)")
        }
        do {
            descriptor = try DZIDescriptor(xml: text)
        } catch {
            throw CommandFailure("not a Deep Zoom descriptor: \(path): \(error)")
        }
        let files = String(path.dropLast(4)) + "_files"
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: files, isDirectory: &isFolder), isFolder.boolValue else {
            throw CommandFailure("\(path) has no tiles folder \(files)")
        }
        let pyramid = descriptor.pyramid
        var present: [Int] = []
        var bytes = 0
        var strays = 0
        let suffix = "." + descriptor.format
        for level in 0...pyramid.maxLevel {
            let grid = pyramid.grid(level)
            var count = 0
            let folder = "\(files)/\(level)"
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
                guard name.hasSuffix(suffix), let address = Self.address(String(name.dropLast(suffix.count))),
                    address.column < grid.columns, address.row < grid.rows
                else {
                    strays += 1
                    continue
                }
                var status = stat()
                guard stat("\(folder)/\(name)", &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
                    strays += 1
                    continue
                }
                count += 1
                bytes += Int(status.st_size)
            }
            present.append(count)
        }
        self.present = present
        self.bytes = bytes
        self.strays = strays
        associated = AssociatedImage.kept(inFiles: files)
        let propertiesPath = files + "/vips-properties.xml"
        if let data = FileManager.default.contents(atPath: propertiesPath) {
            do {
                recorded = try PyramidProperties(xml: Array(data))
                propertiesProblem = nil
            } catch {
                recorded = nil
                propertiesProblem = error.message
            }
        } else {
            recorded = nil
            propertiesProblem = nil
        }
    }

    /// `COLUMN_ROW` as numbers.
    private static func address(_ stem: String) -> (column: Int, row: Int)? {
        let parts = stem.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, let column = Int(parts[0]), let row = Int(parts[1]), column >= 0, row >= 0 else { return nil }
        return (column, row)
    }

    private var pyramid: Pyramid { descriptor.pyramid }

    private var tileCount: Int { present.reduce(0, +) }

    var text: String {
        let expected = PyramidBuilder.tileCount(of: pyramid)
        let stem = (String(path.dropLast(4)) as NSString).lastPathComponent
        var holds = "  holds: \(stem)_files/ with \(tileCount) of \(expected) tiles (\(ArchiveReport.bytes(UInt64(bytes))))"
        if recorded != nil || propertiesProblem != nil { holds += ", vips-properties.xml" }
        if !associated.isEmpty { holds += ", associated images " + associated.joined(separator: ", ") }
        if strays > 0 { holds += ", \(strays) other file\(strays == 1 ? "" : "s") (ignored)" }
        var lines = [
            "\(path): Deep Zoom folder pyramid, \(descriptor.width) × \(descriptor.height)",
            holds,
            "  tiles: \(descriptor.format), \(descriptor.tileSize)-px, overlap \(descriptor.overlap)",
            "  served: by tiler serve, every tile sent as stored (from the cache, or with sendfile from its file)",
        ]
        if let recorded {
            lines.append(InfoReport.recordedLine(recorded, size: (descriptor.width, descriptor.height)))
        } else if let propertiesProblem {
            lines.append("  records: nothing readable (\(propertiesProblem); tiler serve leaves it out)")
        }
        lines += InfoReport.containerLevelLines(of: pyramid) { present[$0] }
        return lines.joined(separator: "\n") + "\n"
    }

    var json: String {
        JSONWriter.text { out in
            out.openObject()
            out.member("path", path)
            out.member("container", "folder")
            out.member("tileBytes", bytes)
            out.member("format", descriptor.format)
            out.member("width", descriptor.width)
            out.member("height", descriptor.height)
            out.member("tileSize", descriptor.tileSize)
            out.member("overlap", descriptor.overlap)
            out.member("tiles", tileCount)
            out.member("otherFiles", strays)
            out.member("passThrough", true)
            InfoReport.writeKept(associated: associated, recorded: recorded, to: &out)
            InfoReport.writeLevels(of: pyramid, present: { present[$0] }, to: &out)
            out.closeObject()
        } + "\n"
    }
}
