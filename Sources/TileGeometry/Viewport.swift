/// What a client shows: the input of the visible-tiles query, modelled on `UIScrollView`.
///
/// The image is drawn at `zoomScale` points per image pixel; the viewport is `width` × `height` points whose
/// top-left corner sits at content offset (`x`, `y`) in the zoomed content, so it shows image pixels
/// `[x / zoomScale, (x + width) / zoomScale] × [y / zoomScale, (y + height) / zoomScale]`.
/// Values are validated once, here: every `Viewport` is safe to query.
public struct Viewport: Sendable, Hashable {
    /// The horizontal content offset, in points of the zoomed content (`contentOffset.x`; may be negative).
    public let x: Double
    /// The vertical content offset, in points of the zoomed content (`contentOffset.y`; may be negative).
    public let y: Double
    /// The viewport width, in points (> 0).
    public let width: Double
    /// The viewport height, in points (> 0).
    public let height: Double
    /// Points per full-resolution image pixel (> 0); 1 shows one image pixel per point.
    public let zoomScale: Double
    /// Device pixels per point (> 0), e.g. 2 on a Retina screen.
    public let contentScale: Double
    /// How many whole tiles of margin to add around the visible ones, on every side (≥ 0).
    public let prefetch: Int

    /// Creates a viewport from untrusted input.
    ///
    /// - Throws: ``GeometryError`` naming the first offending parameter, in the order of the arguments: `x` and `y`
    ///   must be finite; `width`, `height`, `zoomScale` and `contentScale` finite and > 0; `prefetch` ≥ 0.
    public init(
        x: Double, y: Double, width: Double, height: Double, zoomScale: Double, contentScale: Double = 1, prefetch: Int = 0
    ) throws(GeometryError) {
        try Self.checkFinite(x, "x")
        try Self.checkFinite(y, "y")
        try Self.checkPositive(width, "width")
        try Self.checkPositive(height, "height")
        try Self.checkPositive(zoomScale, "zoomScale")
        try Self.checkPositive(contentScale, "contentScale")
        guard prefetch >= 0 else {
            throw GeometryError(parameter: "prefetch", message: "prefetch must be an integer ≥ 0 (got \(prefetch))")
        }
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.zoomScale = zoomScale
        self.contentScale = contentScale
        self.prefetch = prefetch
    }

    private static func checkFinite(_ value: Double, _ parameter: String) throws(GeometryError) {
        guard value.isFinite else {
            throw GeometryError(parameter: parameter, message: "\(parameter) must be a finite number (got \(value))")
        }
    }

    private static func checkPositive(_ value: Double, _ parameter: String) throws(GeometryError) {
        guard value.isFinite && value > 0 else {
            throw GeometryError(parameter: parameter, message: "\(parameter) must be a finite number > 0 (got \(value))")
        }
    }
}
