/// The largest image the IIIF service produces (the info.json `maxWidth`, `maxHeight` and `maxArea`): output
/// sizes are checked against them before any work, and `max` / `^max` / `!w,h` are fitted within them.
public struct IIIFLimits: Sendable, Hashable {
    /// The widest output image, in pixels (≥ 1).
    public var maxWidth: Int
    /// The tallest output image, in pixels (≥ 1).
    public var maxHeight: Int
    /// The most output pixels (width × height) in one image (≥ 1).
    public var maxArea: Int

    /// Creates limits; the defaults keep one response at 64 Mi pixels (8192 × 8192) at most.
    public init(maxWidth: Int = 16384, maxHeight: Int = 16384, maxArea: Int = 1 << 26) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxArea = maxArea
    }

    /// Whether a `width` × `height` image is within the limits.
    package func allows(width: Int, height: Int) -> Bool {
        width <= maxWidth && height <= maxHeight && width * height <= maxArea
    }

    /// The largest size with the aspect ratio of `width` × `height` that fits the limits (the Image API 3.0
    /// implementation note's algorithm): the size itself when it fits, else shrunk, never below 1 × 1.
    ///
    /// With `growing`, a size smaller than the limits is enlarged to them (what `^max` asks for).
    package func fit(width: Int, height: Int, growing: Bool) -> (width: Int, height: Int) {
        let w = Double(width)
        let h = Double(height)
        var scale = min(Double(maxWidth) / w, Double(maxHeight) / h, (Double(maxArea) / (w * h)).squareRoot())
        if !growing { scale = min(scale, 1) }
        if scale == 1 { return (width, height) }
        var fitted = (width: max(1, Int(w * scale)), height: max(1, Int(h * scale)))
        // Rounding (or a side held at 1 pixel) can leave the area just over: trim the sides to it.
        fitted.height = max(1, min(fitted.height, maxArea / fitted.width))
        fitted.width = min(fitted.width, maxArea / fitted.height)
        return fitted
    }
}
