extension PixelFormat {
    /// A short human name: `gray`, `gray+alpha`, `RGB` or `RGBA`.
    public var name: String {
        switch self {
        case .gray: "gray"
        case .grayAlpha: "gray+alpha"
        case .rgb: "RGB"
        case .rgba: "RGBA"
        }
    }
}
