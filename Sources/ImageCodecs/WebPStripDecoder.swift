import CWebP

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A WebP file (a pyramid's stored tile, or any WebP up to 16383² pixels) decoded whole by libwebp on the first
/// read, then handed out in rows. WebP cannot be decoded in strips through libwebp's simple API, and its size limit
/// keeps the whole image at most 1 GiB of RGBA; tiles are 256² and cost nothing.
final class WebPStripDecoder: StripDecoder {
    private let bytes: [UInt8]
    private let header: ImageHeader
    private var pixels: [UInt8] = []
    private var nextRow = 0
    private(set) var message = ""

    private init(bytes: [UInt8], header: ImageHeader) {
        self.bytes = bytes
        self.header = header
    }

    /// Reads `file` into memory, reads its header and checks it against `options.maxPixels` (before decoding).
    static func open(file: InputFile, options: DecodeOptions) throws(CodecError) -> (WebPStripDecoder, ImageHeader) {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = fread(&chunk, 1, chunk.count, file.handle)
            if count > 0 { bytes += chunk[0..<count] }
            if count < chunk.count { break }
            guard bytes.count <= 1 << 31 else { throw CodecError(kind: .tooLarge, path: file.path, message: "WebP file over 2 GiB") }
        }
        guard ferror(file.handle) == 0 else {
            throw CodecError(kind: .io, path: file.path, message: "read error: \(String(cString: strerror(errno)))")
        }
        let info: WebPDecoder.Info
        do {
            info = try WebPDecoder.info(bytes)
        } catch {
            throw CodecError(kind: bytes.count < 30 ? .truncated : .corrupt, path: file.path, message: "damaged or truncated WebP header")
        }
        let format: PixelFormat = info.hasAlpha ? .rgba : .rgb
        let header = ImageHeader(
            format: .webp, width: info.width, height: info.height, pixelFormat: format, channels: format.channels, bitDepth: 8,
            colorType: info.hasAlpha ? "rgba" : "rgb", interlaced: false, progressive: false,
            chromaSubsampling: info.lossless == false ? "4:2:0" : nil, orientation: nil)
        try header.checkLimits(maxPixels: options.maxPixels, path: file.path)
        return (WebPStripDecoder(bytes: bytes, header: header), header)
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: UInt32, done: inout UInt32) -> Int32 {
        done = 0
        let rowBytes = header.width * header.channels
        if pixels.isEmpty {
            var status: Int32 = 0
            pixels = [UInt8](unsafeUninitializedCapacity: rowBytes * header.height) { output, initialized in
                status = bytes.withUnsafeBufferPointer {
                    tiler_webp_decode($0.baseAddress, $0.count, output.baseAddress, rowBytes, Int32(header.channels))
                }
                initialized = status == TILER_WEBP_OK ? rowBytes * header.height : 0
            }
            guard status == TILER_WEBP_OK else {
                message = "damaged WebP data"
                return TILER_WEBP_ERR_CORRUPT
            }
        }
        while done < count && nextRow < header.height {
            pixels.withUnsafeBufferPointer { source in
                (buffer + Int(done) * stride).update(from: source.baseAddress! + nextRow * rowBytes, count: rowBytes)
            }
            nextRow += 1
            done += 1
        }
        return 0
    }

    var errorRow: Int? { pixels.isEmpty ? 0 : nil }
}
