import ImageCodecs

/// Opens the files that hold whole pyramids, read in place: pyramidal TIFF, BigTIFF, OME-TIFF and Aperio SVS
/// (``TIFFPyramid``).
enum StoredPyramids {
    /// Why a file is not served in place.
    struct OpenError: Error {
        let message: String
        /// The file is simply not a pyramid (striped, one resolution): no error, `tiler slice` is for it.
        let isNotAPyramid: Bool
        /// The file could not be read now (out of descriptors, a read error): looked at again at the next scan.
        var isTransient = false
    }

    /// The pyramid in the file at `path` (a real path).
    ///
    /// - Throws: ``OpenError``.
    static func open(path: String) throws(OpenError) -> any StoredPyramid {
        do {
            return try TIFFPyramid(path: path)
        } catch {
            throw OpenError(message: error.reason, isNotAPyramid: error.kind == .notPyramid, isTransient: error.kind == .unreadable)
        }
    }
}

extension TIFFPyramid: StoredPyramid {
    var storedLevels: [StoredLevel] {
        levels.map {
            StoredLevel(
                width: $0.width, height: $0.height, tileWidth: $0.tileWidth, tileHeight: $0.tileHeight, channels: $0.channels,
                passesThrough: $0.jpegPassThrough)
        }
    }

    var colourProfile: [UInt8]? { iccProfile }
}
