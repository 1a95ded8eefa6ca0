/// The pixel loops of the renderer, over raw pointers: resampling passes, channel conversions, qualities, and
/// placing rows into a rotated and mirrored output. Pixels are 8-bit interleaved with 1–4 channels (gray,
/// gray+alpha, RGB, RGBA); resampled intermediate rows hold 16-bit values, 256 × the 8-bit value.
enum PixelRows {
    /// Resamples one level row horizontally: `source` points at level pixel `axis.sourceStart`, and must be
    /// readable for `axis.sourceEnd − axis.sourceStart + axis.taps` pixels (the padding is read with weight 0).
    ///
    /// - Complexity: O(count × taps × channels).
    static func horizontal(_ source: UnsafePointer<UInt8>, axis: ResampleAxis, channels: Int, into output: UnsafeMutablePointer<UInt16>) {
        let taps = axis.taps
        axis.weights.withUnsafeBufferPointer { weights in
            axis.starts.withUnsafeBufferPointer { starts in
                for i in 0..<axis.count {
                    let pixel = source + (starts[i] - axis.sourceStart) * channels
                    let w = weights.baseAddress! + i * taps
                    for c in 0..<channels {
                        var sum: Int32 = 0
                        for t in 0..<taps {
                            sum += Int32(pixel[t * channels + c]) * w[t]
                        }
                        output[i * channels + c] = UInt16(truncatingIfNeeded: (sum + 32) >> 6)
                    }
                }
            }
        }
    }

    /// Combines `rows` intermediate rows of `count` values with `weights` (14-bit, summing to 1) into 8-bit values.
    ///
    /// - Parameter accumulator: Scratch space for `count` values.
    static func vertical(
        _ rows: [UnsafePointer<UInt16>], weights: UnsafePointer<Int32>, count: Int, accumulator: UnsafeMutablePointer<Int32>,
        into output: UnsafeMutablePointer<UInt8>
    ) {
        accumulator.update(repeating: 1 << 21, count: count)
        for (t, row) in rows.enumerated() {
            let weight = weights[t]
            guard weight != 0 else { continue }
            for i in 0..<count {
                accumulator[i] &+= Int32(row[i]) &* weight
            }
        }
        for i in 0..<count {
            output[i] = UInt8(truncatingIfNeeded: min(accumulator[i] >> 22, 255))
        }
    }

    /// Converts `count` pixels from `from` to `to` channels: gray expands to RGB, colour becomes luminance,
    /// alpha is added (opaque) or dropped.
    static func convert(_ source: UnsafePointer<UInt8>, from: Int, to: Int, count: Int, into output: UnsafeMutablePointer<UInt8>) {
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
    static func channels(_ channels: Int, after quality: IIIFQuality) -> Int {
        let hasAlpha = channels == 2 || channels == 4
        switch quality {
        case .default: return channels
        case .color: return hasAlpha ? 4 : 3
        case .gray, .bitonal: return hasAlpha ? 2 : 1
        }
    }

    /// Applies `quality` to `count` pixels of `channels` channels (`output` has ``channels(_:after:)`` channels).
    static func apply(
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
    static func luminance(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        UInt8(truncatingIfNeeded: (19595 * Int(r) + 38470 * Int(g) + 7471 * Int(b) + 32768) >> 16)
    }
}
