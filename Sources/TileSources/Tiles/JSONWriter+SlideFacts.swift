import JSONText

extension JSONWriter {
    /// Writes a slide's facts as members of the open object, the one shape they have in JSON (the image list's
    /// entries and `tiler info --json` alike): `vendor`, `objectivePower`, `micronsPerPixel` (`{x, y}`) and `bounds`
    /// (`{x, y, width, height}`, the scanned area in full-resolution pixels).
    ///
    /// A fact not known is left out, or, with `unknownAsNull`, written `null` — all but `bounds`, which is left out.
    package mutating func slideFacts(
        vendor: String?, objectivePower: Double?, micronsPerPixel: (x: Double, y: Double)?,
        bounds: (x: Int, y: Int, width: Int, height: Int)?, unknownAsNull: Bool
    ) {
        if vendor != nil || unknownAsNull { member("vendor", vendor) }
        if objectivePower != nil || unknownAsNull { member("objectivePower", objectivePower) }
        if let micronsPerPixel {
            key("micronsPerPixel")
            openObject()
            member("x", micronsPerPixel.x)
            member("y", micronsPerPixel.y)
            closeObject()
        } else if unknownAsNull {
            member("micronsPerPixel", nil as Double?)
        }
        if let bounds {
            key("bounds")
            openObject()
            member("x", bounds.x)
            member("y", bounds.y)
            member("width", bounds.width)
            member("height", bounds.height)
            closeObject()
        }
    }
}
