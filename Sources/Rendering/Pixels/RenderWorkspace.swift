import ImageCodecs
import TileSources

/// What one render thread reuses from request to request: the encoders (one libjpeg compressor, PNG output
/// buffer and libwebp configuration each) and the tile decoder's scratch file.
///
/// `@unchecked Sendable`: a workspace is handed between threads only through ``RenderPool``'s free list, which
/// gives it to one job at a time, so it is never used by two threads at once.
package final class RenderWorkspace: @unchecked Sendable {
    /// The JPEG encoder of output images.
    package let jpeg: JPEGEncoder
    /// The PNG encoder of output images.
    package let png: PNGEncoder
    /// The WebP encoder of output images (lossy, at the JPEG quality).
    package let webp: WebPEncoder
    /// The decoder of tiles.
    package let decoder = EncodedTileDecoder()

    /// Creates a workspace whose JPEG output has quality `jpegQuality` (1–100).
    package init(jpegQuality: Int) throws {
        jpeg = try JPEGEncoder(quality: jpegQuality, optimizeHuffman: false, subsampling: .s420)
        png = try PNGEncoder(compressionLevel: 6, filter: .sub)
        webp = try WebPEncoder(quality: jpegQuality)
    }

    /// Encodes `pixels` (`width` × `height`, rows packed) in `format`.
    package func encode(_ pixels: [UInt8], width: Int, height: Int, pixelFormat: PixelFormat, format: IIIFFormat) throws -> [UInt8] {
        try pixels.withUnsafeBufferPointer { buffer in
            switch format {
            case .jpg:
                try jpeg.encode(
                    buffer.baseAddress!, width: width, height: height, rowStride: width * pixelFormat.channels, pixelFormat: pixelFormat)
            case .png:
                try png.encode(
                    buffer.baseAddress!, width: width, height: height, rowStride: width * pixelFormat.channels, pixelFormat: pixelFormat)
            case .webp:
                try webp.encode(
                    buffer.baseAddress!, width: width, height: height, rowStride: width * pixelFormat.channels, pixelFormat: pixelFormat)
            }
        }
    }
}
