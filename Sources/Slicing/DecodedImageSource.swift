import ImageCodecs

/// A ``RowSource`` over a decoder from ImageCodecs: the rows of a PNG, JPEG, TIFF or WebP file, streamed.
public final class DecodedImageSource: RowSource {
    /// The decoder, positioned at the next row.
    public let reader: any ImageRowReader

    /// Opens `path` with `options` (format sniffing, header checks and pixel limits are the decoder's).
    public convenience init(path: String, options: DecodeOptions = .init()) throws {
        self.init(reader: try ImageDecoder.open(path: path, options: options))
    }

    /// Wraps an open decoder.
    public init(reader: any ImageRowReader) {
        self.reader = reader
    }

    public var width: Int { reader.header.width }
    public var height: Int { reader.header.height }
    public var channels: Int { reader.header.channels }
    public var preferredBatchRows: Int { reader.preferredBatchRows }

    public func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int {
        try reader.readRows(into: buffer, rowCount: rowCount)
    }
}
