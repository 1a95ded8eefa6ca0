import Foundation
import ImageCodecs

/// Smooth synthetic images (gradients and low-frequency waves) and a PSNR measure.
enum SmoothImage {
    /// A `width × height` image of `format` whose samples vary slowly, so JPEG should keep it well.
    static func make(width: Int, height: Int, format: PixelFormat = .rgb) -> PixelBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * format.channels)
        for y in 0..<height {
            for x in 0..<width {
                let (u, v) = (Double(x) / Double(width), Double(y) / Double(height))
                let samples = [
                    128 + 100 * sin(2.1 * u + 1.3 * v), 128 + 90 * cos(3.0 * v - 1.1 * u), 60 + 150 * u * v, 255 * (1 - u),
                ]
                bytes += (0..<format.channels).map { UInt8(max(0, min(255, samples[$0].rounded()))) }
            }
        }
        return PixelBuffer(width: width, height: height, pixelFormat: format, bytes: bytes)
    }

    /// Peak signal-to-noise ratio in dB between two equal-sized sample arrays (infinity when equal).
    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        precondition(a.count == b.count && !a.isEmpty)
        let squared = zip(a, b).reduce(0.0) { sum, pair in
            let d = Double(pair.0) - Double(pair.1)
            return sum + d * d
        }
        guard squared > 0 else { return .infinity }
        return 10 * log10(255 * 255 / (squared / Double(a.count)))
    }
}
