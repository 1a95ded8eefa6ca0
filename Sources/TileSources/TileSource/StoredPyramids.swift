import Glibc
import ImageCodecs

/// Opens the files that hold whole pyramids, read in place: pyramidal TIFF, BigTIFF, OME-TIFF and Aperio SVS
/// (``TIFFPyramid``), and every whole-slide format OpenSlide reads (``SlidePyramid``).
package enum StoredPyramids {
    /// Why a file is not served in place.
    package struct OpenError: Error {
        package let message: String
        /// The file is simply not a pyramid (striped, one resolution): no error, `tiler slice` is for it.
        package let isNotAPyramid: Bool
        /// The file could not be read now (out of descriptors, a read error): looked at again at the next scan.
        package var isTransient = false
    }

    /// The pyramid in the file at `path` (a real path). A TIFF-family file (``PyramidFileNames/tiffExtensions``) is
    /// read by ``TIFFPyramid`` when it can be; OpenSlide reads the rest, and the TIFFs ``TIFFPyramid`` does not serve
    /// (JPEG 2000 Aperio, Philips, Ventana, levels not marked as reduced) unless they hold a single resolution.
    ///
    /// - Throws: ``OpenError``.
    package static func open(path: String) throws(OpenError) -> any StoredPyramid {
        guard PyramidFileNames.isTIFFFamily(path) else { return try openSlide(path: path) }
        let tiffError: TIFFPyramidError
        do {
            let pyramid = try TIFFPyramid(path: path)
            // A single-resolution Aperio slide stays OpenSlide's, as it always was (its label, macro and thumbnail
            // are OpenSlide's anyway); other TIFFs of one small level are the TIFF source's.
            guard pyramid.levels.count == 1, pyramid.layout == .aperio, Slide.vendor(of: path) != nil else { return pyramid }
            tiffError = TIFFPyramidError(kind: .notPyramid, path: path, reason: "a single resolution (no reduced-resolution levels)")
        } catch {
            tiffError = error
        }
        let notServed = OpenError(
            message: tiffError.reason, isNotAPyramid: tiffError.kind == .notPyramid, isTransient: tiffError.kind == .unreadable)
        guard tiffError.kind != .unreadable, Slide.vendor(of: path) != nil else { throw notServed }
        let slide: SlidePyramid
        do {
            slide = try SlidePyramid(path: path)
        } catch {
            // OpenSlide recognised the file and failed: its reason is the one worth a warning.
            throw error.kind == .damaged ? OpenError(message: error.reason, isNotAPyramid: false) : notServed
        }
        guard slide.levels.count > 1 || slide.vendor != "generic-tiff" else { throw notServed }
        return slide
    }

    /// The slide at `path` through OpenSlide.
    private static func openSlide(path: String) throws(OpenError) -> SlidePyramid {
        do {
            return try SlidePyramid(path: path)
        } catch {
            throw OpenError(message: error.reason, isNotAPyramid: error.kind == .notASlide, isTransient: error.kind == .changed)
        }
    }
}

extension TIFFPyramid: StoredPyramid {
    package var storedLevels: [StoredLevel] {
        levels.map {
            StoredLevel(
                width: $0.width, height: $0.height, tileWidth: $0.tileWidth, tileHeight: $0.tileHeight, channels: $0.channels,
                passesThrough: $0.jpegPassThrough)
        }
    }

    package var colourProfile: [UInt8]? { iccProfile }

    package var facts: ImageFacts { ImageFacts(tiff: self) }

    package func jpegTileFile(level: Int, column: Int, row: Int) throws -> StoredTileFile? {
        let region = try jpegTileRegion(level: level, column: column, row: row)
        let descriptor = duplicateDescriptor()
        guard descriptor >= 0 else { return nil }
        // The region was checked once for this opening of the file: it is sent from the file only while the file is
        // still that one (a file rewritten in place is read the usual way, which checks the tile again or fails).
        var status = stat()
        guard fstat(descriptor, &status) == 0, TIFFPyramid.FileIdentity(status) == identity else {
            close(descriptor)
            return nil
        }
        return StoredTileFile(
            descriptor: descriptor, prefix: region.prefix, offset: region.offset, length: region.length, fileSize: Int(status.st_size),
            modified: status.st_mtim)
    }
}
