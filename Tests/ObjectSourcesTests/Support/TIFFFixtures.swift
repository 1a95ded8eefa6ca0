import Foundation
import ImageCodecs
import SampleImage
import TestSupport

@testable import Slicing

/// The pyramidal TIFFs the tests upload, each made by a real writer — Tiler's slicer (a COG layout: every directory
/// and tile table first), `vips tiffsave` (each directory after its level's tiles), GDAL's COG driver — and the
/// damage the tests do to them, at the places a TIFF reader follows.
enum TIFFFixtures {
    /// Slices a `width` × `height` procedural picture into `folder/NAME.tif` with `tileSize`-pixel JPEG tiles (BigTIFF
    /// when `bigTIFF`).
    static func sliced(width: Int, height: Int, tileSize: Int = 256, bigTIFF: Bool = false, in folder: TemporaryDirectory, name: String) throws
        -> String
    {
        var options = SliceOptions(fileExtension: "jpg") { try JPEGEncoder(quality: 80) }
        options.container = .tiff
        options.tileSize = tileSize
        options.bigTIFF = bigTIFF
        options.threads = 2
        let image = ProceduralImage(width: width, height: height, seed: 3)
        _ = try PyramidBuilder(options: options).slice(ProceduralRows(image), into: folder.path, name: name)
        return folder.file("\(name).tif")
    }

    /// `vips tiffsave` of a `width` × `height` procedural picture into `folder/NAME` with `options` (e.g. `--tile
    /// --pyramid --compression jpeg`).
    static func vips(_ options: [String], width: Int, height: Int, in folder: TemporaryDirectory, name: String) throws -> String {
        let source = try picture(width: width, height: height, in: folder)
        let saved = try ExternalTool.run("/usr/bin/vips", ["tiffsave", source, folder.file(name)] + options)
        guard saved.status == 0 else { throw FixtureError(message: "vips tiffsave \(name) failed: \(saved.errors)") }
        return folder.file(name)
    }

    /// `gdal_translate -of COG` of a `width` × `height` procedural picture into `folder/NAME`: GDAL's Cloud-Optimized
    /// GeoTIFF (JPEG tiles of 256 pixels, overviews as reduced-resolution directories, every directory first).
    static func gdalCOG(width: Int, height: Int, in folder: TemporaryDirectory, name: String) throws -> String {
        let source = try picture(width: width, height: height, in: folder)
        let arguments = [
            "-q", "-of", "COG", "-co", "COMPRESS=JPEG", "-co", "BLOCKSIZE=256", "-co", "OVERVIEW_RESAMPLING=AVERAGE", source, folder.file(name),
        ]
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gdal_translate") else {
            throw FixtureError(message: "gdal_translate is missing: install Debian's gdal-bin (scripts/test does)")
        }
        let saved = try ExternalTool.run("/usr/bin/gdal_translate", arguments)
        guard saved.status == 0 else { throw FixtureError(message: "gdal_translate \(name) failed: \(saved.errors)") }
        return folder.file(name)
    }

    /// The procedural picture as a PNG in `folder` (written once).
    private static func picture(width: Int, height: Int, in folder: TemporaryDirectory) throws -> String {
        let path = folder.file("picture-\(width)x\(height).png")
        if !FileManager.default.fileExists(atPath: path) {
            try ProceduralImage(width: width, height: height, seed: 7).write(to: path, format: .png(compressionLevel: 1))
        }
        return path
    }
}
