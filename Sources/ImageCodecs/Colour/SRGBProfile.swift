import CLCMS

/// The sRGB ICC profile (Little CMS's built-in one, serialised), for files that record their colour space.
public enum SRGBProfile {
    /// The profile's bytes (about 3 KB), made once.
    public static let bytes: [UInt8] = {
        var buffer: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard tiler_lcms_srgb_profile(&buffer, &length) == 0, let buffer else { return [] }
        defer { tiler_lcms_free(buffer) }
        return Array(UnsafeBufferPointer(start: buffer, count: length))
    }()
}

extension SRGBProfile {
    /// Whether converting from `profile` to sRGB leaves colours as they are — within one level on 8-bit samples, over a
    /// 9 × 9 × 9 grid of RGB colours (every level of grey for a grey profile): an sRGB profile by another maker, which
    /// needs no conversion. `channels` as the pixels have them (1–4; alpha is left out of the test).
    ///
    /// - Complexity: one transform built and 729 pixels converted.
    public static func isEquivalent(_ profile: [UInt8], channels: Int) -> Bool {
        let gray = channels <= 2
        guard let transform = try? ColourTransform(iccProfile: profile, input: ColourInput(space: gray ? .gray : .rgb)),
            transform.outputChannels == (gray ? 1 : 3)
        else { return false }
        var samples: [UInt8] = []
        if gray {
            samples = (0...255).map { UInt8($0) }
        } else {
            let steps = (0...8).map { UInt8(min(255, $0 * 32)) }
            for r in steps { for g in steps { for b in steps { samples += [r, g, b] } } }
        }
        var output = [UInt8](repeating: 0, count: samples.count)
        samples.withUnsafeBytes { source in
            output.withUnsafeMutableBufferPointer {
                transform.apply(source.baseAddress!, to: $0.baseAddress!, pixels: samples.count / (gray ? 1 : 3))
            }
        }
        return zip(samples, output).allSatisfy { abs(Int($0) - Int($1)) <= 1 }
    }
}
