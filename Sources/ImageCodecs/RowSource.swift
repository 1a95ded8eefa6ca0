/// A top-to-bottom source of 8-bit pixel rows — the one idea of "rows" in Tiler: what a slice reads (an image file's
/// decoder, ``ImageRowReader``; rows turned upright, `OrientedRowSource`; a test's rows), whatever makes them.
///
/// Rows are contiguous, `width × channels` bytes each, channels interleaved. A reader calls ``readRows(into:rowCount:)``
/// from one thread only, until it has all `height` rows. (Inside ImageCodecs, each format's C decoder sits behind a
/// `StripDecoder`, the format-specific half of an ``ImageRowReader``.)
public protocol RowSource: AnyObject {
    /// The image width in pixels (≥ 1).
    var width: Int { get }
    /// The image height in pixels (≥ 1).
    var height: Int { get }
    /// Samples per pixel: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA (alpha last, straight — not premultiplied).
    var channels: Int { get }

    /// Decodes the next rows into `buffer`.
    ///
    /// - Parameters:
    ///   - buffer: Room for `rowCount` rows of `width × channels` bytes, written contiguously.
    ///   - rowCount: The most rows wanted (≥ 1, never more than remain).
    /// - Returns: The number of rows written, `1 ... rowCount`; `0` means the source ended early (an error).
    /// - Throws: Any error; the builder reports its description with the row it had reached.
    func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int

    /// Rows per ``readRows(into:rowCount:)`` call that let the decoder skip a copy: a TIFF's row of tiles or band of
    /// strips, decoded straight into the caller's rows when a call starts at a multiple of it and asks for at least
    /// that many. 0, the default, when any count is as good.
    var preferredBatchRows: Int { get }
}

extension RowSource {
    public var preferredBatchRows: Int { 0 }
}
