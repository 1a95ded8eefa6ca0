import HTTPCore
import TileGeometry

/// The region parameter of a IIIF image request (Image API 3.0 §4.1), as written: not yet checked against an image.
package enum IIIFRegion: Equatable, Sendable {
    /// `full`: the whole image.
    case full
    /// `square`: the largest centred square.
    case square
    /// `x,y,w,h` in full-resolution pixels.
    case pixels(x: Int, y: Int, width: Int, height: Int)
    /// `pct:x,y,w,h` in percent of the image's width and height.
    case percent(x: Double, y: Double, width: Double, height: Double)

    /// Parses the region segment of a request.
    ///
    /// - Throws: ``RequestError`` 400 naming what is malformed.
    package init(parsing text: Substring) throws(RequestError) {
        if text.isBytes("full") {
            self = .full
        } else if text.isBytes("square") {
            self = .square
        } else if text.hasBytePrefix("pct:") {
            guard let values = IIIFNumber.four(text.dropFirst(4), IIIFNumber.decimal) else {
                throw .badRequest("region \(text) is malformed: expected pct:x,y,w,h with decimal numbers")
            }
            self = .percent(x: values.0, y: values.1, width: values.2, height: values.3)
        } else {
            guard let values = IIIFNumber.four(text, IIIFNumber.integer) else {
                throw .badRequest("region \(text) is malformed: expected full, square, x,y,w,h or pct:x,y,w,h")
            }
            self = .pixels(x: values.0, y: values.1, width: values.2, height: values.3)
        }
    }

    /// The full-resolution pixels this region selects in a `width` × `height` image, clipped to the image
    /// (a region reaching past the edges is cut there, §4.1). Percentages are rounded to the nearest pixel; a
    /// non-zero percentage never rounds to an empty side.
    ///
    /// - Throws: ``RequestError`` 400 when the region has a zero width or height or lies wholly outside the image.
    package func rect(width: Int, height: Int) throws(RequestError) -> PixelRect {
        let requested: PixelRect
        switch self {
        case .full:
            return PixelRect(x: 0, y: 0, width: width, height: height)
        case .square:
            let side = min(width, height)
            return PixelRect(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
        case .pixels(let x, let y, let w, let h):
            requested = PixelRect(x: x, y: y, width: w, height: h)
        case .percent(let x, let y, let w, let h):
            requested = PixelRect(
                x: Self.pixels(x, of: width), y: Self.pixels(y, of: height),
                width: w > 0 ? max(1, Self.pixels(w, of: width)) : 0, height: h > 0 ? max(1, Self.pixels(h, of: height)) : 0)
        }
        guard !requested.isEmpty else {
            throw .badRequest("the region has a zero width or height")
        }
        guard requested.x < width, requested.y < height else {
            throw .badRequest("the region lies outside the \(width)×\(height) image")
        }
        return PixelRect(
            x: requested.x, y: requested.y, width: min(requested.width, width - requested.x),
            height: min(requested.height, height - requested.y))
    }

    /// `percent` of `side` pixels, rounded to nearest, kept within `0...2 × side` so huge percentages stay finite.
    private static func pixels(_ percent: Double, of side: Int) -> Int {
        Int((min(percent, 200) * Double(side) / 100).rounded())
    }
}
