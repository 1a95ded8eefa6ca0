/// Decodes every row of an image, streaming, to prove the whole file is intact.
public enum ImageVerifier {
    /// Decodes all rows of `path` in strips of `stripRows` and returns the row count.
    ///
    /// Memory is O(width × stripRows) for a streamable image. Throws the decoder's `CodecError` on damage
    /// anywhere in the file, including when it ends before its last row.
    public static func verify(path: String, options: DecodeOptions = .init(), stripRows: Int = 64) throws -> Int {
        let reader = try ImageDecoder.open(path: path, options: options)
        let header = reader.header
        let rowBytes = header.width * header.channels
        let rows = max(1, min(stripRows, header.height))
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes * rows)
        defer { buffer.deallocate() }
        while reader.rowsRead < header.height {
            let wanted = min(rows, header.height - reader.rowsRead)
            let got = try reader.readRows(into: buffer, rowCount: wanted)
            guard got > 0 else {
                throw CodecError(
                    kind: .truncated, path: path, message: "image data ends early", row: reader.rowsRead, height: header.height)
            }
        }
        return reader.rowsRead
    }
}
