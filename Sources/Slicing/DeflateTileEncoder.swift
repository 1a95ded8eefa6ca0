import CZlib

/// Encodes a pyramidal TIFF's lossless tiles: 8-bit samples with horizontal differencing (Predictor 2) in one zlib
/// stream — compression 8, as libtiff writes and reads it. Not a file format of its own: only ``TIFFTileWriter``
/// stores these bytes. Scratch buffers are kept between tiles (one encoder per worker thread).
final class DeflateTileEncoder: TileEncoding {
    /// The zlib level, 0–9.
    let level: Int
    private var scratch: [UInt8] = []
    private var output: [UInt8] = []

    /// Creates an encoder at zlib level `level` (0–9).
    init(level: Int) {
        precondition((0...9).contains(level), "zlib levels are 0…9")
        self.level = level
    }

    /// Compresses the tile; every channel is kept (alpha too).
    ///
    /// - Complexity: O(width × height × channels).
    func encode(_ base: UnsafePointer<UInt8>, width: Int, height: Int, rowStride: Int, channels: Int) throws -> [UInt8] {
        precondition(width >= 1 && height >= 1 && rowStride >= width * channels, "an empty tile or a short stride")
        let raw = width * height * channels
        if scratch.count < raw { scratch = [UInt8](repeating: 0, count: raw) }
        let bound = tiler_deflate_tile_bound(width, height, Int32(channels))
        if output.count < bound { output = [UInt8](repeating: 0, count: bound) }
        let length = scratch.withUnsafeMutableBufferPointer { scratch in
            output.withUnsafeMutableBufferPointer { output in
                tiler_deflate_tile(
                    base, width, height, rowStride, Int32(channels), Int32(level), scratch.baseAddress, output.baseAddress, output.count)
            }
        }
        guard length > 0 else { throw SliceError(.encoder, "zlib could not compress a \(width)×\(height) tile") }
        return Array(output[0..<length])
    }
}
