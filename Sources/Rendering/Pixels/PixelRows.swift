/// The pixel loops of the renderer, over raw pointers: resampling passes, channel conversions, qualities, and
/// placing rows into a rotated and mirrored output. Pixels are 8-bit interleaved with 1–4 channels (gray,
/// gray+alpha, RGB, RGBA); resampled intermediate rows hold 16-bit values, 256 × the 8-bit value.
package enum PixelRows {
    /// Resamples one level row horizontally: `source` points at level pixel `axis.sourceStart`, and must be
    /// readable for `axis.sourceEnd − axis.sourceStart + axis.taps` pixels (the padding is read with weight 0).
    ///
    /// - Complexity: O(count × taps × channels).
    package static func horizontal(_ source: UnsafePointer<UInt8>, axis: ResampleAxis, channels: Int, into output: UnsafeMutablePointer<UInt16>) {
        axis.weights.withUnsafeBufferPointer { weights in
            axis.starts.withUnsafeBufferPointer { starts in
                let base = source - axis.sourceStart * channels
                switch channels {
                case 3: horizontal3(base, starts: starts, weights: weights, taps: axis.taps, into: output)
                default: horizontal(base, starts: starts, weights: weights, taps: axis.taps, channels: channels, into: output)
                }
            }
        }
    }

    /// ``horizontal(_:axis:channels:into:)`` for RGB, the common case, with the channels unrolled. The sums cannot
    /// overflow (at most 255 × 2^14), so the arithmetic wraps instead of checking.
    private static func horizontal3(
        _ base: UnsafePointer<UInt8>, starts: UnsafeBufferPointer<Int>, weights: UnsafeBufferPointer<Int32>, taps: Int,
        into output: UnsafeMutablePointer<UInt16>
    ) {
        var w = weights.baseAddress!
        var out = output
        for start in starts {
            var pixel = base + start &* 3
            var (r, g, b): (Int32, Int32, Int32) = (32, 32, 32)
            for t in 0..<taps {
                let weight = w[t]
                r &+= Int32(pixel[0]) &* weight
                g &+= Int32(pixel[1]) &* weight
                b &+= Int32(pixel[2]) &* weight
                pixel += 3
            }
            out[0] = UInt16(truncatingIfNeeded: r &>> 6)
            out[1] = UInt16(truncatingIfNeeded: g &>> 6)
            out[2] = UInt16(truncatingIfNeeded: b &>> 6)
            out += 3
            w += taps
        }
    }

    /// ``horizontal(_:axis:channels:into:)`` for any channel count.
    private static func horizontal(
        _ base: UnsafePointer<UInt8>, starts: UnsafeBufferPointer<Int>, weights: UnsafeBufferPointer<Int32>, taps: Int, channels: Int,
        into output: UnsafeMutablePointer<UInt16>
    ) {
        for (i, start) in starts.enumerated() {
            let pixel = base + start &* channels
            let w = weights.baseAddress! + i &* taps
            for c in 0..<channels {
                var sum: Int32 = 32
                for t in 0..<taps {
                    sum &+= Int32(pixel[t &* channels &+ c]) &* w[t]
                }
                output[i &* channels &+ c] = UInt16(truncatingIfNeeded: sum &>> 6)
            }
        }
    }

    /// Combines `count` rows of the ring `ring` (`capacity` rows of `stride` values, level row `r` in slot
    /// `r % capacity`) starting at level row `first`, with `weights` (14-bit, summing to 1), into 8-bit values.
    /// The sums cannot overflow (at most 65280 × 2^14 + 2^21 < 2^31), so the arithmetic wraps instead of checking.
    ///
    /// - Parameter accumulator: Scratch space for `stride` values.
    package static func vertical(
        ring: UnsafePointer<UInt16>, capacity: Int, stride: Int, first: Int, count: Int, weights: UnsafePointer<Int32>,
        accumulator: UnsafeMutablePointer<Int32>, into output: UnsafeMutablePointer<UInt8>
    ) {
        accumulator.update(repeating: 1 << 21, count: stride)
        for t in 0..<count {
            let weight = weights[t]
            guard weight != 0 else { continue }
            let row = ring + ((first + t) % capacity) * stride
            for i in 0..<stride {
                accumulator[i] &+= Int32(row[i]) &* weight
            }
        }
        for i in 0..<stride {
            output[i] = UInt8(truncatingIfNeeded: min(accumulator[i] &>> 22, 255))
        }
    }

    /// Converts `count` pixels from `from` to `to` channels: gray expands to RGB, colour becomes luminance,
    /// alpha is added (opaque) or dropped.
    package static func convert(_ source: UnsafePointer<UInt8>, from: Int, to: Int, count: Int, into output: UnsafeMutablePointer<UInt8>) {
        if from == to {
            output.update(from: source, count: count * from)
            return
        }
        for i in 0..<count {
            let p = source + i * from
            let q = output + i * to
            let alpha: UInt8 = from == 2 || from == 4 ? p[from - 1] : 255
            if to >= 3 {
                let (r, g, b) = from >= 3 ? (p[0], p[1], p[2]) : (p[0], p[0], p[0])
                q[0] = r
                q[1] = g
                q[2] = b
            } else {
                q[0] = from >= 3 ? luminance(p[0], p[1], p[2]) : p[0]
            }
            if to == 2 || to == 4 { q[to - 1] = alpha }
        }
    }

    /// The channels of a row of `channels`-channel pixels after `quality`: colour for `color` (gray expanded),
    /// one luminance channel (plus alpha) for `gray` and `bitonal`, unchanged for `default`.
    package static func channels(_ channels: Int, after quality: IIIFQuality) -> Int {
        let hasAlpha = channels == 2 || channels == 4
        switch quality {
        case .default: return channels
        case .color: return hasAlpha ? 4 : 3
        case .gray, .bitonal: return hasAlpha ? 2 : 1
        }
    }

    /// Applies `quality` to `count` pixels of `channels` channels (`output` has ``channels(_:after:)`` channels).
    package static func apply(
        _ quality: IIIFQuality, _ source: UnsafePointer<UInt8>, channels: Int, count: Int, into output: UnsafeMutablePointer<UInt8>
    ) {
        let outputChannels = Self.channels(channels, after: quality)
        convert(source, from: channels, to: outputChannels, count: count, into: output)
        guard quality == .bitonal else { return }
        for i in 0..<count {
            output[i * outputChannels] = output[i * outputChannels] >= 128 ? 255 : 0
        }
    }

    /// Rec. 601 luma of an 8-bit RGB pixel, rounded.
    @inline(__always)
    package static func luminance(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: (19595 * Int(r) + 38470 * Int(g) + 7471 * Int(b) + 32768) >> 16)
    }
}
