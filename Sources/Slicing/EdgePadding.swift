/// Encodes an edge tile at the full tile size, as TIFF stores every tile: the pixels copied into a `size` × `size`
/// buffer and their last column and row repeated to its edges (which decoders crop away; repeating, rather than
/// black, keeps JPEG's blocks at the edge from ringing).
enum EdgePadding {
    /// Encodes the `width` × `height` pixels at `origin` (rows `rowStride` bytes apart) padded to `size` × `size`.
    ///
    /// - Complexity: O(size²) extra copying, for edge tiles only.
    static func encode(
        _ origin: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int, size: Int, encoder: any TileEncoding
    ) throws -> [UInt8] {
        precondition(width >= 1 && height >= 1 && width <= size && height <= size, "an edge tile larger than the tile size")
        let padded = size * channels
        var pixels = [UInt8](repeating: 0, count: padded * size)
        pixels.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            for y in 0..<size {
                let row = base + y * padded
                (row).update(from: origin + min(y, height - 1) * rowStride, count: width * channels)
                let last = row + (width - 1) * channels
                for x in width..<size {
                    (row + x * channels).update(from: last, count: channels)
                }
            }
        }
        return try pixels.withUnsafeBufferPointer { buffer in
            try encoder.encode(buffer.baseAddress!, width: size, height: size, rowStride: padded, channels: channels)
        }
    }
}
