import CLCMS

/// How the source rows a ``ColourTransform`` converts are laid out: any format's decoder can describe its rows
/// this way (PNG, JPEG, TIFF alike).
public struct ColourInput: Sendable, Hashable {
    /// The colour model of the samples.
    public enum Space: Sendable, Hashable {
        /// One sample per pixel.
        case gray
        /// Red, green, blue.
        case rgb
        /// Cyan, magenta, yellow, black ink.
        case cmyk
    }

    /// The colour model.
    public var space: Space
    /// Bytes per sample: 1, or 2 for 16-bit samples stored big-endian (as PNG and big-endian TIFF do).
    public var bytesPerSample: Int
    /// Whether one straight alpha sample follows the colour samples (it is copied, scaled to 8 bits).
    public var hasAlpha: Bool
    /// CMYK only: samples are `255 − ink`, Adobe's convention in JPEG files with an APP14 marker.
    public var invertedCMYK: Bool

    /// Describes a row layout.
    public init(space: Space, bytesPerSample: Int = 1, hasAlpha: Bool = false, invertedCMYK: Bool = false) {
        self.space = space
        self.bytesPerSample = bytesPerSample
        self.hasAlpha = hasAlpha
        self.invertedCMYK = invertedCMYK
    }

    /// Samples per source pixel, alpha included.
    public var samples: Int {
        let colour: Int
        switch space {
        case .gray: colour = 1
        case .rgb: colour = 3
        case .cmyk: colour = 4
        }
        return colour + (hasAlpha ? 1 : 0)
    }

    /// Bytes per source pixel.
    public var bytesPerPixel: Int { samples * bytesPerSample }

    var shim: tiler_lcms_input {
        let code: Int32
        switch space {
        case .gray: code = TILER_LCMS_SPACE_GRAY
        case .rgb: code = TILER_LCMS_SPACE_RGB
        case .cmyk: code = TILER_LCMS_SPACE_CMYK
        }
        return tiler_lcms_input(
            space: code, bytes: Int32(bytesPerSample), alpha: hasAlpha ? 1 : 0, inverted: invertedCMYK ? 1 : 0)
    }
}
