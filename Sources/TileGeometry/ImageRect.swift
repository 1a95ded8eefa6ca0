/// A rectangle with real coordinates, `[minX, maxX] × [minY, maxY]`, in full-resolution image pixels.
///
/// Stored by its bounds so that queries use the exact bounds they computed; ``width`` and ``height`` are derived.
public struct ImageRect: Sendable, Hashable, CustomStringConvertible {
    /// The left edge, in image pixels.
    public var minX: Double
    /// The top edge, in image pixels.
    public var minY: Double
    /// The right edge, in image pixels.
    public var maxX: Double
    /// The bottom edge, in image pixels.
    public var maxY: Double

    /// Creates a rectangle from its bounds, in image pixels.
    public init(minX: Double, minY: Double, maxX: Double, maxY: Double) {
        self.minX = minX
        self.minY = minY
        self.maxX = maxX
        self.maxY = maxY
    }

    /// Creates a rectangle from its origin and size, in image pixels: `maxX = x + width`, `maxY = y + height`.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(minX: x, minY: y, maxX: x + width, maxY: y + height)
    }

    /// The left edge, ``minX``.
    public var x: Double { minX }
    /// The top edge, ``minY``.
    public var y: Double { minY }
    /// `maxX − minX`.
    public var width: Double { maxX - minX }
    /// `maxY − minY`.
    public var height: Double { maxY - minY }
    /// The horizontal centre, `(minX + maxX) / 2`.
    public var midX: Double { (minX + maxX) / 2 }
    /// The vertical centre, `(minY + maxY) / 2`.
    public var midY: Double { (minY + maxY) / 2 }
    /// Whether the rectangle has no area: `maxX ≤ minX` or `maxY ≤ minY` (or a bound is NaN).
    public var isEmpty: Bool { !(minX < maxX && minY < maxY) }

    /// The bounds as `[minX, maxX] × [minY, maxY]`, for messages.
    public var description: String { "[\(minX), \(maxX)] × [\(minY), \(maxY)]" }
}
