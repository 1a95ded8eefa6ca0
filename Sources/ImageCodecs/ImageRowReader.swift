/// An image file's decoder: a ``RowSource`` of its rows, top to bottom in strips, as 8-bit `header.pixelFormat`
/// pixels, with the header read when it was opened.
///
/// Not Sendable: use a reader from one thread at a time. While a non-interlaced image streams,
/// memory stays O(width × strip height). After a thrown error every later call throws again.
public protocol ImageRowReader: RowSource {
    /// The header read when the reader was opened.
    var header: ImageHeader { get }
    /// Rows delivered so far (0...header.height).
    var rowsRead: Int { get }
}

extension ImageRowReader {
    public var width: Int { header.width }
    public var height: Int { header.height }
    public var channels: Int { header.channels }
}
