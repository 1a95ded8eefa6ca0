import Foundation
import ImageCodecs
import TestSupport
import Testing

/// `DecodeOptions.jpegScale`: libjpeg's DCT-scaled decode (the coarse view of an upload) gives ceil(W/s) × ceil(H/s)
/// rows whose pixels are the full decode's s×s block averages, nearly; other scales are refused.
@Suite struct JPEGScaleTests {
    /// A smooth gradient (DCT scaling is exact for block averages only up to the JPEG's own loss).
    static func gradient(width: Int, height: Int) -> PixelBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                bytes += [UInt8(x * 255 / width), UInt8(y * 255 / height), UInt8((x + y) * 127 / (width + height))]
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: bytes)
    }

    @Test(arguments: [2, 4, 8])
    func scaledDecodeIsTheBlockAverage(scale: Int) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try JPEGEncoder(quality: 95).encode(Self.gradient(width: 1001, height: 603)), to: "g.jpg")
        let full = try ImageDecoder.decode(path: path)
        var options = DecodeOptions()
        options.jpegScale = scale
        let header = try ImageDecoder.readHeader(path: path, options: options)
        #expect(header.width == (1001 + scale - 1) / scale && header.height == (603 + scale - 1) / scale)
        let small = try ImageDecoder.decode(path: path, options: options)
        #expect(small.width == header.width && small.height == header.height)
        var worst = 0
        for y in 0..<(603 / scale) {
            for x in 0..<(1001 / scale) {
                for channel in 0..<3 {
                    var sum = 0
                    for dy in 0..<scale {
                        for dx in 0..<scale { sum += Int(full.bytes[((y * scale + dy) * 1001 + x * scale + dx) * 3 + channel]) }
                    }
                    let average = sum / (scale * scale)
                    worst = max(worst, abs(average - Int(small.bytes[(y * small.width + x) * 3 + channel])))
                }
            }
        }
        #expect(worst <= 6, "largest difference from the block average: \(worst)")
    }

    @Test func otherScalesAreRefused() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(try JPEGEncoder().encode(Self.gradient(width: 64, height: 64)), to: "g.jpg")
        var options = DecodeOptions()
        options.jpegScale = 3
        #expect(throws: CodecError.self) { try ImageDecoder.readHeader(path: path, options: options) }
    }
}
