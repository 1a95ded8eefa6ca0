import HTTPCore
import TileGeometry

extension IIIFSize {
    /// The size of the output image (before rotation) for an extracted `region`, as Image API 3.0 §4.2 defines it:
    /// `max` fits the region within `limits` without enlarging it, `^max` fits it to them, `!w,h` fits it within the
    /// box and the limits, and the other forms give their sizes, the missing side keeping the aspect ratio (rounded
    /// to nearest).
    ///
    /// - Throws: ``RequestError`` 400 when a side would be 0, when a form without `^` would enlarge the region
    ///   (including `!w,h` whose box is larger than the region in both directions), or when the size exceeds
    ///   `limits`.
    package func resolve(region: PixelRect, limits: IIIFLimits) throws(RequestError) -> (width: Int, height: Int) {
        let rw = region.width
        let rh = region.height
        let size: (width: Int, height: Int)
        switch form {
        case .max:
            return limits.fit(width: rw, height: rh, growing: upscale)
        case .width(let w):
            size = (w, Self.scaled(rh, by: w, over: rw))
        case .height(let h):
            size = (Self.scaled(rw, by: h, over: rh), h)
        case .exact(let w, let h):
            size = (w, h)
        case .percent(let n):
            size = (Int((Double(rw) * n / 100).rounded()), Int((Double(rh) * n / 100).rounded()))
        case .confined(let w, let h):
            guard w > 0 && h > 0 else { throw .badRequest("size !\(w),\(h) has a zero side") }
            // Which side the box constrains: w/rw ≤ h/rh, compared without division.
            let byWidth = Double(w) * Double(rh) <= Double(h) * Double(rw)
            let boxed = byWidth ? (w, min(h, Self.scaled(rh, by: w, over: rw))) : (min(w, Self.scaled(rw, by: h, over: rh)), h)
            guard upscale || (boxed.0 <= rw && boxed.1 <= rh) else {
                throw .badRequest("size !\(w),\(h) would enlarge the \(rw)×\(rh) region; prefix it with ^ to allow that")
            }
            return limits.fit(width: boxed.0, height: boxed.1, growing: false)
        }
        return try checked(size, region: region, limits: limits)
    }

    /// `size` if it is allowed: at least 1 × 1, not enlarging the region unless `^` was given, within `limits`.
    private func checked(_ size: (width: Int, height: Int), region: PixelRect, limits: IIIFLimits) throws(RequestError) -> (width: Int, height: Int) {
        guard size.width >= 1 && size.height >= 1 else {
            throw .badRequest("the requested size of the \(region.width)×\(region.height) region is \(size.width)×\(size.height): a side is 0")
        }
        guard upscale || (size.width <= region.width && size.height <= region.height) else {
            throw .badRequest(
                "size \(size.width)×\(size.height) would enlarge the \(region.width)×\(region.height) region; prefix it with ^ to allow that")
        }
        guard limits.allows(width: size.width, height: size.height) else {
            throw .badRequest(
                "size \(size.width)×\(size.height) exceeds this server's limits (maxWidth \(limits.maxWidth), maxHeight "
                    + "\(limits.maxHeight), maxArea \(limits.maxArea))")
        }
        return size
    }

    /// `side × numerator / denominator`, rounded to nearest (at least 1: a side kept in proportion never vanishes).
    private static func scaled(_ side: Int, by numerator: Int, over denominator: Int) -> Int {
        max(1, Int((Double(side) * Double(numerator) / Double(denominator)).rounded()))
    }
}
