/// An integer rectangle in pixels: `x ..< x + width` × `y ..< y + height`.
public struct PixelRect: Sendable, Hashable, CustomStringConvertible {
    /// The left edge, in pixels.
    public var x: Int
    /// The top edge, in pixels.
    public var y: Int
    /// The width, in pixels (≥ 0).
    public var width: Int
    /// The height, in pixels (≥ 0).
    public var height: Int

    /// Creates a rectangle from its origin and size, in pixels.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// One past the right edge.
    public var maxX: Int { x + width }
    /// One past the bottom edge.
    public var maxY: Int { y + height }
    /// Whether the rectangle covers no pixel.
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public var description: String { "(\(x), \(y), \(width)×\(height))" }
}
