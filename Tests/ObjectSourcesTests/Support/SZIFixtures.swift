import Archive
import Foundation
import ImageCodecs
import SampleImage
import TestSupport
import TileGeometry

@testable import Slicing

/// The procedural picture's rows, top to bottom, as the slicer reads an image.
final class ProceduralRows: RowSource {
    let image: ProceduralImage
    private var next = 0

    init(_ image: ProceduralImage) {
        self.image = image
    }

    var width: Int { image.width }
    var height: Int { image.height }
    var channels: Int { image.channels }

    func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int {
        image.renderRows(startRow: next, rowCount: rowCount, into: buffer)
        next += rowCount
        return rowCount
    }
}

/// The SZIs the tests upload, each made by a real writer: Tiler's slicer, libvips' `dzsave`, or ``ZIPWriter`` for
/// layouts no slicer makes.
enum SZIFixtures {
    /// Slices a `width` × `height` procedural picture into `folder/NAME.szi` (JPEG tiles, a slide's properties, so
    /// the archive has `vips-properties.xml` and `scan-properties.xml`); ZIP64 records throughout when `zip64`.
    static func sliced(width: Int, height: Int, seed: UInt64 = 1, zip64: Bool = false, in folder: TemporaryDirectory, name: String) throws -> String {
        var options = SliceOptions(fileExtension: "jpg") { try JPEGEncoder(quality: 80) }
        options.container = .szi
        options.threads = 2
        options.properties = PyramidProperties(
            width: width, height: height, bands: 3,
            slideProperties: [
                "openslide.vendor": "tiler-test", "openslide.mpp-x": "0.25", "openslide.mpp-y": "0.25", "openslide.objective-power": "40",
            ])
        if zip64 { options.zip64Threshold = 0 }
        let image = ProceduralImage(width: width, height: height, seed: seed)
        _ = try PyramidBuilder(options: options).slice(ProceduralRows(image), into: folder.path, name: name)
        return folder.file("\(name).szi")
    }

    /// `vips dzsave` of a procedural picture into `folder/NAME.szi`: every entry with a data descriptor (flag bit 3)
    /// and a 29-byte local extra field, the layout libvips 8.14 (libarchive) writes.
    static func vips(width: Int, height: Int, in folder: TemporaryDirectory, name: String) throws -> String {
        let source = folder.file("\(name)-source.png")
        try ProceduralImage(width: width, height: height, seed: 5).write(to: source, format: .png(compressionLevel: 1))
        let saved = try ExternalTool.run("/usr/bin/vips", ["dzsave", source, folder.file("\(name).szi")])
        guard saved.status == 0 else { throw FixtureError(message: "vips dzsave failed: \(saved.errors)") }
        return folder.file("\(name).szi")
    }

    /// An SZI of `descriptor`'s every tile (a few bytes each: `LEVEL-COLUMN-ROW`) under `p/`, the descriptor written
    /// last (as Tiler and libvips do) or, when `descriptorFirst`, first.
    static func written(_ descriptor: DZIDescriptor, descriptorFirst: Bool = false, in folder: TemporaryDirectory, name: String) throws -> String {
        let path = folder.file("\(name).szi")
        let writer = try ZIPWriter(path: path)
        let dzi = ("p/p.dzi", Array(descriptor.xml.utf8))
        var entries = descriptor.pyramid.tiles.map { tile in
            ("p/p_files/\(tile.level)/\(tile.column)_\(tile.row).jpg", Array("\(tile.level)-\(tile.column)-\(tile.row)".utf8))
        }
        if descriptorFirst { entries.insert(dzi, at: 0) } else { entries.append(dzi) }
        for (name, bytes) in entries { try bytes.withUnsafeBytes { try writer.append(name: name, bytes: $0) } }
        _ = try writer.finish()
        return path
    }
}

/// A fixture that could not be made.
struct FixtureError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
