/// Encodes one tile from a strided pixel region into the bytes of an image file (JPEG, PNG, …).
///
/// The builder makes one instance per worker thread with ``SliceOptions/makeEncoder`` and uses it from that thread
/// only, so an encoder may keep scratch state between tiles.
public protocol TileEncoding: AnyObject {
    /// Encodes `width × height` pixels whose rows start `rowStride` bytes apart.
    ///
    /// - Parameters:
    ///   - base: The tile's top-left pixel; valid for reading during the call only.
    ///   - width: The tile width in pixels (≥ 1).
    ///   - height: The tile height in pixels (≥ 1).
    ///   - rowStride: Bytes from one row to the next (≥ `width × channels`).
    ///   - channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
    /// - Returns: The complete file contents.
    func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int) throws -> [UInt8]
}
