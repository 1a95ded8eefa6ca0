/// Opens the files that hold whole pyramids, read in place.
enum StoredPyramids {
    /// Why a file is not served in place.
    struct OpenError: Error {
        let message: String
        /// The file is simply not a pyramid (striped, one resolution): no error, `tiler slice` is for it.
        let isNotAPyramid: Bool
    }

    /// The pyramid in the file at `path` (a real path).
    ///
    /// - Throws: ``OpenError``.
    static func open(path: String) throws(OpenError) -> any StoredPyramid {
        throw OpenError(message: "serving files in place is not wired yet", isNotAPyramid: true)
    }
}
