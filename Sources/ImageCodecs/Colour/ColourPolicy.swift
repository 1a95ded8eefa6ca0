/// What a decoder does with colour information.
public enum ColourPolicy: Sendable, Hashable {
    /// Convert tagged images to sRGB; a broken or unsupported profile is a warning and the image is taken as sRGB.
    case convert
    /// Deliver the stored numbers untouched (CMYK still becomes RGB, with the uncalibrated formula).
    case keep
    /// As ``convert``, but a broken or unsupported profile is an error.
    case strict
}
