/// The 2×2 box filter that makes each pyramid level from the one above.
///
/// Each output pixel is the mean of the 2×2 block of input pixels it covers, rounded to nearest (ties up). At an odd
/// right or bottom edge the block is cut short and only the pixels that exist are averaged (two, or one in the
/// corner). Colour channels of images with alpha (gray+alpha, RGBA) are alpha-weighted:
/// `colour = round(Σ(c·a) / Σa)`, `alpha = round(Σa / n)`, so a transparent pixel does not darken its opaque
/// neighbours. When `Σa = 0` (the block is fully transparent) colour is the plain rounded mean, so transparent
/// regions keep their colour. When all alphas of a block are equal the weighted and plain means coincide exactly,
/// which the loops use as their fast path.
///
/// The loops are specialised per channel count over raw pointers: no allocation, no generic dispatch. On
/// little-endian machines the main loops are SIMD over 16-byte registers (SSE2 on x86-64), with scalar tails.
public enum Downsample {
    /// Shrinks one pair of rows into one output row.
    ///
    /// - Parameters:
    ///   - top: The upper input row: `width × channels` bytes.
    ///   - bottom: The lower input row, or `nil` when `top` is the last row of an odd-height level.
    ///   - width: The input width in pixels (≥ 1).
    ///   - channels: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA.
    ///   - out: The output row: `((width + 1) / 2) × channels` bytes; must not overlap the inputs.
    /// - Complexity: O(width).
    public static func shrinkRow(
        _ top: UnsafePointer<UInt8>, _ bottom: UnsafePointer<UInt8>?, width: Int, channels: Int, into out: UnsafeMutablePointer<UInt8>
    ) {
        precondition(width >= 1 && (1...4).contains(channels), "width must be ≥ 1 and channels 1…4")
        guard let bottom else {
            shrinkSingleRow(top, width: width, channels: channels, into: out)
            return
        }
        let pairs = width / 2
        #if _endian(little)
            switch channels {
            case 1: vectorGray(top, bottom, pairs: pairs, into: out)
            case 2: vectorGrayAlpha(top, bottom, pairs: pairs, into: out)
            case 3: vectorRGB(top, bottom, pairs: pairs, into: out)
            default: vectorRGBA(top, bottom, pairs: pairs, into: out)
            }
        #else
            switch channels {
            case 1: scalarGray(top, bottom, pairs: pairs, into: out)
            case 2: scalarGrayAlpha(top, bottom, pairs: pairs, into: out)
            case 3: scalarRGB(top, bottom, pairs: pairs, into: out)
            default: scalarRGBA(top, bottom, pairs: pairs, into: out)
            }
        #endif
        if width & 1 == 1 {
            let offset = (width - 1) * channels
            averageTwo(top + offset, bottom + offset, channels: channels, into: out + pairs * channels)
        }
    }

    /// The bottom row of an odd-height level: horizontal pairs of two pixels, and one lone pixel at an odd end.
    static func shrinkSingleRow(_ row: UnsafePointer<UInt8>, width: Int, channels: Int, into out: UnsafeMutablePointer<UInt8>) {
        let pairs = width / 2
        for i in 0..<pairs {
            averageTwo(row + 2 * i * channels, row + (2 * i + 1) * channels, channels: channels, into: out + i * channels)
        }
        if width & 1 == 1 {
            (out + pairs * channels).update(from: row + (width - 1) * channels, count: channels)
        }
    }

    /// The mean of two pixels (alpha-weighted when `channels` is 2 or 4): the edge case, off the hot path.
    static func averageTwo(_ p: UnsafePointer<UInt8>, _ q: UnsafePointer<UInt8>, channels: Int, into out: UnsafeMutablePointer<UInt8>) {
        let hasAlpha = channels & 1 == 0
        let colours = hasAlpha ? channels - 1 : channels
        let ap = hasAlpha ? UInt32(p[colours]) : 1
        let aq = hasAlpha ? UInt32(q[colours]) : 1
        let sum = ap + aq
        for c in 0..<colours {
            // Equal weights (including Σa = 0) give exactly the plain mean.
            let mean = ap == aq ? (UInt32(p[c]) + UInt32(q[c]) + 1) >> 1 : (UInt32(p[c]) * ap + UInt32(q[c]) * aq + sum / 2) / sum
            out[c] = UInt8(truncatingIfNeeded: mean)
        }
        if hasAlpha {
            out[colours] = UInt8(truncatingIfNeeded: (sum + 1) >> 1)
        }
    }
}
