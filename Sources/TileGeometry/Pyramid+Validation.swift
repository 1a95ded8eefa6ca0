extension Pyramid {
    /// The image sides ``validated(width:height:tileSize:overlap:)`` accepts: 1 … 2³¹ pixels.
    ///
    /// Within these limits every ``Pyramid`` computation stays far below `Int.max` (tile frames span at most 2⁴⁴
    /// pixels) and below 2⁵³, so image coordinates are exact as `Double`.
    public static let sideLimits: ClosedRange<Int> = 1...(1 << 31)
    /// The tile sizes ``validated(width:height:tileSize:overlap:)`` accepts: 1 … 8192 pixels.
    public static let tileSizeLimits: ClosedRange<Int> = 1...8192

    /// Creates the pyramid of a `width` × `height` image from untrusted input.
    ///
    /// Accepts `width` and `height` in ``sideLimits`` (1 … 2³¹), `tileSize` in ``tileSizeLimits`` (1 … 8192) and
    /// `overlap` in `0 ..< tileSize` (as libvips `dzsave` does).
    ///
    /// - Throws: ``GeometryError`` naming the first offending parameter (`width`, `height`, `tileSize`, `overlap`).
    public static func validated(width: Int, height: Int, tileSize: Int = 256, overlap: Int = 0) throws(GeometryError) -> Pyramid {
        try check(width, in: sideLimits, parameter: "width")
        try check(height, in: sideLimits, parameter: "height")
        try check(tileSize, in: tileSizeLimits, parameter: "tileSize")
        guard overlap >= 0 && overlap < tileSize else {
            throw GeometryError(
                parameter: "overlap", message: "overlap must be an integer in 0...\(tileSize - 1), less than tileSize (got \(overlap))")
        }
        return Pyramid(width: width, height: height, tileSize: tileSize, overlap: overlap)
    }

    private static func check(_ value: Int, in limits: ClosedRange<Int>, parameter: String) throws(GeometryError) {
        guard limits.contains(value) else {
            throw GeometryError(
                parameter: parameter,
                message: "\(parameter) must be an integer in \(limits.lowerBound)...\(limits.upperBound) (got \(value))")
        }
    }
}
