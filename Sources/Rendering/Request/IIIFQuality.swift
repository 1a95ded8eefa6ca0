/// The quality parameter of a IIIF image request (Image API 3.0 §4.4).
package enum IIIFQuality: String, Sendable, CaseIterable {
    /// The image as stored (colour or gray, as the pyramid is).
    case `default`
    /// All its colour (gray pyramids come back as RGB with equal channels).
    case color
    /// Luminance only (one channel, Rec. 601 weights).
    case gray
    /// Black and white (luminance thresholded at half).
    case bitonal

    /// The quality named by `text` (exactly, as bytes), or `nil`.
    package init?(bytes text: Substring) {
        if text.isBytes("default") {
            self = .default
        } else if text.isBytes("color") {
            self = .color
        } else if text.isBytes("gray") {
            self = .gray
        } else if text.isBytes("bitonal") {
            self = .bitonal
        } else {
            return nil
        }
    }
}
