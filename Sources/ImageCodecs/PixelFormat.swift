/// The layout of one pixel in delivered rows and encoder input: 8 bits per sample, interleaved.
public enum PixelFormat: Int, Sendable, CaseIterable {
    /// One sample: gray.
    case gray = 1
    /// Two samples: gray, alpha.
    case grayAlpha = 2
    /// Three samples: red, green, blue.
    case rgb = 3
    /// Four samples: red, green, blue, alpha (not premultiplied).
    case rgba = 4

    /// Bytes per pixel (1–4).
    public var channels: Int { rawValue }

    /// Whether the last sample is alpha.
    public var hasAlpha: Bool { self == .grayAlpha || self == .rgba }
}
