/// The answer of ``Pyramid/visibleTiles(in:tileLimit:)``: the level to draw, what is visible, and the tiles to
/// fetch, nearest the centre first.
public struct VisibleTiles: Sendable, Hashable {
    /// The pyramid queried.
    public let pyramid: Pyramid
    /// The level to draw: the coarsest one that does not upsample (see ``Pyramid/level(zoomScale:contentScale:)``).
    public let level: Int
    /// The visible part of the image in full-resolution pixels, or `nil` when nothing of the image is visible.
    public let visibleRect: ImageRect?
    /// The tiles of ``level`` to draw, in fetch order: ascending squared distance from the tile frame's centre to
    /// the visible rect's centre, ties by row then column. Empty when ``visibleRect`` is `nil`.
    public let tiles: [VisibleTile]

    /// Creates an answer; the query is the only producer.
    init(pyramid: Pyramid, level: Int, visibleRect: ImageRect?, tiles: [VisibleTile]) {
        self.pyramid = pyramid
        self.level = level
        self.visibleRect = visibleRect
        self.tiles = tiles
    }

    /// The scale of ``level`` against full resolution: `2^(level − maxLevel)`, exact.
    public var levelScale: Double { Double(sign: .plus, exponent: level - pyramid.maxLevel, significand: 1) }

    /// The size of ``level`` in pixels, ``Pyramid/levelSize(_:)``.
    public var levelSize: (width: Int, height: Int) { pyramid.levelSize(level) }
}
