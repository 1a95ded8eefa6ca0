/// The `UIScrollView` arithmetic a tiled-image viewer needs, defined once so the server, the command line and the
/// browser viewer (which mirrors these expressions in JavaScript, operation for operation) agree exactly.
///
/// Conventions: `content` is the full-resolution image size in pixels; at zoom scale `z` (points per image pixel)
/// the zoomed content is `content.width · z` × `content.height · z` points. Offsets are `contentOffset`: the
/// zoomed-content point at the viewport's top-left corner. All functions are O(1), pure, and evaluate exactly
/// the `Double` expressions their comments give, in that order.
public enum ZoomMath {
    /// `UIScrollView.DecelerationRate.normal`: velocity is multiplied by this every millisecond.
    public static let normalDecelerationRate = 0.998
    /// `UIScrollView.DecelerationRate.fast`.
    public static let fastDecelerationRate = 0.99

    /// The zoom scale that fits the whole image in the viewport (aspect fit), the usual `minimumZoomScale`:
    /// `min(viewport.width / content.width, viewport.height / content.height)`.
    ///
    /// Callers that never enlarge small images take `min(aspectFitZoom(…), 1)` themselves.
    /// - Precondition: all sides finite and > 0.
    public static func aspectFitZoom(content: Size, viewport: Size) -> Double {
        precondition(isPositive(content) && isPositive(viewport), "sizes must be finite and > 0")
        return min(viewport.width / content.width, viewport.height / content.height)
    }

    /// The content inset that centres zoomed content smaller than the viewport:
    /// `h = max(0, (viewport.width − content.width · zoomScale) / 2)` left and right,
    /// `v = max(0, (viewport.height − content.height · zoomScale) / 2)` top and bottom.
    ///
    /// - Precondition: sizes finite and > 0; `zoomScale` finite and > 0.
    public static func centeringInset(content: Size, zoomScale: Double, viewport: Size) -> Insets {
        precondition(isPositive(content) && isPositive(viewport) && isPositive(zoomScale), "sizes and zoomScale must be finite and > 0")
        let horizontal = max(0, (viewport.width - content.width * zoomScale) / 2)
        let vertical = max(0, (viewport.height - content.height * zoomScale) / 2)
        return Insets(top: vertical, left: horizontal, bottom: vertical, right: horizontal)
    }

    /// `offset` clamped to the scrollable range, as `UIScrollView` rests:
    /// `x` to `[−inset.left, max(−inset.left, content.width · zoomScale + inset.right − viewport.width)]`,
    /// `y` to `[−inset.top, max(−inset.top, content.height · zoomScale + inset.bottom − viewport.height)]`.
    ///
    /// - Precondition: sizes and `zoomScale` finite and > 0; offset and insets finite.
    public static func clampedOffset(_ offset: Point, content: Size, zoomScale: Double, viewport: Size, inset: Insets) -> Point {
        precondition(isPositive(content) && isPositive(viewport) && isPositive(zoomScale), "sizes and zoomScale must be finite and > 0")
        precondition(offset.x.isFinite && offset.y.isFinite, "offset must be finite")
        let minX = -inset.left
        let maxX = max(minX, content.width * zoomScale + inset.right - viewport.width)
        let minY = -inset.top
        let maxY = max(minY, content.height * zoomScale + inset.bottom - viewport.height)
        return Point(x: min(max(offset.x, minX), maxX), y: min(max(offset.y, minY), maxY))
    }

    /// The zoom scale, offset and inset that make `rect` (image pixels) fill the viewport, as
    /// `UIScrollView.zoom(to:animated:)` with a centring inset:
    ///
    /// 1. `z = min(viewport.width / rect.width, viewport.height / rect.height)` (aspect fit; a zero side gives
    ///    infinity), clamped to `[minimumZoomScale, maximumZoomScale]`.
    /// 2. `inset = centeringInset(content, z, viewport)`.
    /// 3. Centred: `x = rect.midX · z − viewport.width / 2`, `y = rect.midY · z − viewport.height / 2`, then
    ///    ``clampedOffset(_:content:zoomScale:viewport:inset:)`` with that inset.
    ///
    /// - Precondition: `rect` finite with sides ≥ 0; `0 < minimumZoomScale ≤ maximumZoomScale`, finite; sizes
    ///   finite and > 0.
    public static func zoom(to rect: ImageRect, content: Size, viewport: Size, minimumZoomScale: Double, maximumZoomScale: Double) -> ZoomTarget {
        precondition(rect.width >= 0 && rect.height >= 0 && rect.minX.isFinite && rect.minY.isFinite, "rect must be finite")
        precondition(isPositive(minimumZoomScale) && minimumZoomScale <= maximumZoomScale && maximumZoomScale.isFinite, "bad zoom range")
        let fit = min(viewport.width / rect.width, viewport.height / rect.height)
        let zoomScale = min(max(fit, minimumZoomScale), maximumZoomScale)
        let inset = centeringInset(content: content, zoomScale: zoomScale, viewport: viewport)
        let centred = Point(x: rect.midX * zoomScale - viewport.width / 2, y: rect.midY * zoomScale - viewport.height / 2)
        let offset = clampedOffset(centred, content: content, zoomScale: zoomScale, viewport: viewport, inset: inset)
        return ZoomTarget(zoomScale: zoomScale, offset: offset, inset: inset)
    }

    /// How far a flick travels before it stops, in points: `velocity / 1000 * rate / (1 − rate)`, evaluated left to
    /// right — the sum of `velocity / 1000 · rateⁿ` over every millisecond `n ≥ 1`.
    ///
    /// - Parameters:
    ///   - velocity: Points per second (signed).
    ///   - rate: The per-millisecond deceleration rate, e.g. ``normalDecelerationRate``.
    /// - Precondition: `0 < rate < 1`.
    public static func decelerationDistance(velocity: Double, rate: Double) -> Double {
        precondition(rate > 0 && rate < 1, "deceleration rate must be in (0, 1)")
        return velocity / 1000 * rate / (1 - rate)
    }

    /// Where a flick from `offset` at `velocity` (points per second, per axis) comes to rest, before clamping:
    /// `offset + decelerationDistance(velocity, rate)` on each axis. Clamp the result with
    /// ``clampedOffset(_:content:zoomScale:viewport:inset:)`` for where the view settles after bouncing.
    ///
    /// - Precondition: `0 < rate < 1`.
    public static func restingOffset(_ offset: Point, velocity: Point, rate: Double) -> Point {
        Point(
            x: offset.x + decelerationDistance(velocity: velocity.x, rate: rate),
            y: offset.y + decelerationDistance(velocity: velocity.y, rate: rate))
    }

    private static func isPositive(_ value: Double) -> Bool { value.isFinite && value > 0 }
    private static func isPositive(_ size: Size) -> Bool { isPositive(size.width) && isPositive(size.height) }
}
