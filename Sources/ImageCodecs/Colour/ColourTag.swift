import Foundation

/// What an image file says about the colour space of its numbers.
public enum ColourTag: Sendable, Equatable {
    /// Nothing: the numbers are taken as sRGB and left untouched.
    case untagged
    /// An embedded ICC profile lcms could parse (JPEG APP2 `ICC_PROFILE`, PNG `iCCP`, TIFF tag 34675).
    case iccProfile(ICCProfile)
    /// An embedded profile that cannot be used, with the reason (truncated, garbage, inconsistent markers).
    case brokenProfile(String)
    /// PNG `sRGB` chunk with its rendering intent: already sRGB, left untouched.
    case srgbChunk(intent: Int)
    /// PNG `gAMA` (file gamma, e.g. 0.45455) and/or `cHRM` (white x, y then red, green, blue x, y).
    case chunks(gamma: Double?, chromaticities: [Double]?)

    /// One phrase for `tiler info`, e.g. `ICC profile "Adobe RGB (1998)" (RGB, 560 bytes)`.
    public var summary: String {
        switch self {
        case .untagged: return "none (taken as sRGB)"
        case .iccProfile(let profile):
            let name = profile.description.map { "\"\($0)\"" } ?? "without a description"
            let space = profile.space.map { "\($0)".uppercased() } ?? "unsupported colour space"
            return "ICC profile \(name) (\(space), \(profile.bytes.count) bytes)"
        case .brokenProfile(let reason): return "unusable ICC profile: \(reason)"
        case .srgbChunk(let intent): return "sRGB chunk (rendering intent \(intent))"
        case .chunks(let gamma, let chromaticities):
            var parts: [String] = []
            if let gamma { parts.append("gAMA \(Self.number(gamma))") }
            if let c = chromaticities {
                parts.append("cHRM white \(Self.number(c[0])),\(Self.number(c[1])) red \(Self.number(c[2])),\(Self.number(c[3]))")
            }
            return parts.joined(separator: ", ")
        }
    }

    /// Whether converting needs a transform (an ICC profile or gamma/chromaticity values).
    public var needsTransform: Bool {
        switch self {
        case .iccProfile, .chunks, .brokenProfile: return true
        case .untagged, .srgbChunk: return false
        }
    }

    private static func number(_ value: Double) -> String {
        var text = String(format: "%.5f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}
