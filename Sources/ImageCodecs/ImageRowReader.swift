/// Delivers an image's rows top to bottom in strips, as 8-bit `header.pixelFormat` pixels.
///
/// Not Sendable: use a reader from one thread at a time. While a non-interlaced image streams,
/// memory stays O(width × strip height). After a thrown error every later call throws again.
public protocol ImageRowReader: AnyObject {
    /// The header read when the reader was opened.
    var header: ImageHeader { get }
    /// Rows delivered so far (0...header.height).
    var rowsRead: Int { get }
    /// Reads up to `rowCount` rows into `buffer` (rows contiguous, stride = width × channels bytes);
    /// returns rows read (< rowCount only at the end; 0 once all rows are read).
    /// - Precondition: `buffer` has room for `rowCount × width × channels` bytes; `rowCount >= 0`.
    func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int
    /// Rows per ``readRows(into:rowCount:)`` call that let the decoder skip a copy: a TIFF's row of tiles or band of
    /// strips, decoded straight into the caller's rows when a call starts at a multiple of it and asks for at least
    /// that many. 0 when any count is as good (the default).
    var preferredBatchRows: Int { get }
}

extension ImageRowReader {
    public var preferredBatchRows: Int { 0 }
}
