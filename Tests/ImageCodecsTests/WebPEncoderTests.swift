import ImageCodecs
import TestSupport
import Testing

/// WebP tiles decode back (with libwebp's decoder) to their source: exactly when lossless, within the quality's
/// error when lossy; alpha survives both.
@Suite struct WebPEncoderTests {
    @Test("Lossy RGB at quality q stays above a PSNR floor", arguments: [(50, 30.0), (75, 33.0), (90, 36.0)])
    func lossy(quality: Int, floor: Double) throws {
        let image = SmoothImage.make(width: 200, height: 120)
        let bytes = try WebPEncoder(quality: quality).encode(image)
        let info = try WebPDecoder.info(bytes)
        #expect((info.width, info.height, info.hasAlpha, info.lossless) == (200, 120, false, false))
        let decoded = try WebPDecoder.decode(bytes)
        #expect(SmoothImage.psnr(decoded.bytes, image.bytes) > floor, "PSNR \(SmoothImage.psnr(decoded.bytes, image.bytes))")
    }

    @Test("Lossless keeps every pixel", arguments: [PixelFormat.gray, .grayAlpha, .rgb, .rgba])
    func lossless(format: PixelFormat) throws {
        let image = SmoothImage.make(width: 77, height: 31, format: format)
        let decoded = try WebPDecoder.decode(try WebPEncoder(quality: 50, lossless: true).encode(image))
        // Gray comes back as RGB (WebP has no gray mode); alpha, when present, as RGBA.
        var expected: [UInt8] = []
        for pixel in 0..<image.width * image.height {
            let samples = image.bytes[pixel * format.channels..<(pixel + 1) * format.channels]
            let color = format == .gray || format == .grayAlpha ? [UInt8](repeating: samples.first!, count: 3) : Array(samples.prefix(3))
            expected += color + (format.hasAlpha ? [samples.last!] : [])
        }
        #expect(decoded.pixelFormat == (format.hasAlpha ? .rgba : .rgb))
        #expect(decoded.bytes == expected)
    }

    @Test func lossyKeepsAlphaExactly() throws {
        let image = SmoothImage.make(width: 64, height: 64, format: .rgba)
        let decoded = try WebPDecoder.decode(try WebPEncoder(quality: 80).encode(image))
        let alpha = stride(from: 3, to: image.bytes.count, by: 4).map { image.bytes[$0] }
        #expect(stride(from: 3, to: decoded.bytes.count, by: 4).map { decoded.bytes[$0] } == alpha)
    }

    @Test func aTileCutFromAWiderStripEncodesLikeTheTileAlone() throws {
        let strip = SmoothImage.make(width: 100, height: 20)
        let tile = PixelBuffer(
            width: 40, height: 20, pixelFormat: .rgb,
            bytes: (0..<20).flatMap { y in strip.bytes[(y * 100 + 30) * 3..<(y * 100 + 70) * 3] })
        let encoder = try WebPEncoder(quality: 70)
        let cut = try strip.bytes.withUnsafeBufferPointer {
            try encoder.encode($0.baseAddress! + 30 * 3, width: 40, height: 20, rowStride: 300, pixelFormat: .rgb)
        }
        #expect(cut == (try encoder.encode(tile)))
    }

    @Test("A WebP file decodes through ImageDecoder like any image (the server renders from stored WebP tiles)", arguments: [false, true])
    func decodesAsAFile(lossless: Bool) throws {
        let directory = try TemporaryDirectory()
        let image = SmoothImage.make(width: 90, height: 50, format: .rgba)
        let bytes = try WebPEncoder(quality: 80, lossless: lossless).encode(image)
        let path = try directory.write(bytes, to: "tile.webp")
        let header = try ImageDecoder.readHeader(path: path)
        #expect((header.format, header.width, header.height, header.pixelFormat) == (.webp, 90, 50, .rgba))
        #expect(try ImageDecoder.decode(path: path) == (try WebPDecoder.decode(bytes)))
        #expect(decodeError(path, options: DecodeOptions(maxPixels: 4000))?.kind == .tooLarge)
        let cut = try directory.write(Array(bytes.prefix(bytes.count / 2)), to: "cut.webp")
        #expect(decodeError(cut)?.description == cut + ": damaged WebP data (at row 0 of 50)")
    }

    @Test func badArgumentsThrow() throws {
        #expect(throws: CodecError.self) { try WebPEncoder(quality: 101) }
        #expect(throws: CodecError.self) { try WebPEncoder(quality: 50, method: 7) }
        let wide = PixelBuffer(width: 16384, height: 1, pixelFormat: .gray, bytes: [UInt8](repeating: 0, count: 16384))
        #expect(throws: CodecError.self) { try WebPEncoder().encode(wide) }
        #expect(throws: CodecError.self) { try WebPDecoder.decode([0x52, 0x49, 0x46, 0x46, 1, 2, 3]) }
    }
}
