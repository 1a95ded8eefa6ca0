import CLCMS

/// An embedded ICC profile's bytes and what it says about itself.
public struct ICCProfile: Sendable, Equatable {
    /// The profile as stored.
    public let bytes: [UInt8]
    /// Its description tag (English when several languages exist), or nil when absent.
    public let description: String?
    /// The colour model it describes, or nil for one Tiler cannot convert (Lab, XYZ, multi-ink…).
    public let space: ColourInput.Space?

    /// Reads the header and description of `bytes`.
    /// - Throws: ``ColourError`` when lcms cannot parse the profile (truncated, garbage). O(profile size).
    public init(bytes: [UInt8]) throws(ColourError) {
        var space: Int32 = 0
        var description = [CChar](repeating: 0, count: 256)
        var message = [CChar](repeating: 0, count: 512)
        let status = bytes.withUnsafeBytes { raw in
            tiler_lcms_profile_info(raw.baseAddress, raw.count, &space, &description, description.count, &message, message.count)
        }
        guard status == 0 else { throw ColourError(ColourTransform.text(message)) }
        self.bytes = bytes
        let text = ColourTransform.text(description).trimmingSpaces
        self.description = text.isEmpty ? nil : text
        switch space {
        case TILER_LCMS_SPACE_GRAY: self.space = .gray
        case TILER_LCMS_SPACE_RGB: self.space = .rgb
        case TILER_LCMS_SPACE_CMYK: self.space = .cmyk
        default: self.space = nil
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var scalars = Substring(self)
        while scalars.first?.isWhitespace == true { scalars.removeFirst() }
        while scalars.last?.isWhitespace == true { scalars.removeLast() }
        return String(scalars)
    }
}
