/// The one place that decides, for any format, whether and how a decoder's rows are converted to sRGB.
public enum ColourManagement {
    /// The transform `tag` needs for rows laid out as `input`, or nil when the rows are used as they are
    /// (untagged, PNG `sRGB`, ``ColourPolicy/keep``, or a broken profile under ``ColourPolicy/convert``).
    ///
    /// - Parameters:
    ///   - warn: Receives one line (no path) when a profile cannot be used and the image is taken as sRGB.
    /// - Throws: ``CodecError`` of kind ``CodecError/Kind/badColourProfile`` under ``ColourPolicy/strict`` when the
    ///   profile cannot be used. O(profile size).
    public static func transform(
        for tag: ColourTag, input: ColourInput, policy: ColourPolicy, path: String, warn: (String) -> Void
    ) throws(CodecError) -> ColourTransform? {
        guard policy != .keep else { return nil }
        let failure: String
        do throws(ColourError) {
            switch tag {
            case .untagged, .srgbChunk: return nil
            case .iccProfile(let profile): return try ColourTransform(iccProfile: profile.bytes, input: input)
            case .chunks(let gamma, let chromaticities):
                return try ColourTransform(gamma: gamma, chromaticities: chromaticities, input: input)
            case .brokenProfile(let reason): failure = reason
            }
        } catch {
            failure = error.message
        }
        if policy == .strict {
            throw CodecError(kind: .badColourProfile, path: path, message: "colour profile cannot be used: \(failure)")
        }
        warn("colour profile ignored (\(failure)); the image is taken as sRGB")
        return nil
    }

    /// Ink (`model`: `CMYK`, `YCCK`) that no profile converts: warns once, and records in `header` that it is turned
    /// into RGB with the uncalibrated formula R = (1 − C)(1 − K), which the decoders apply.
    static func noteUncalibratedInk(_ model: String, header: inout ImageHeader, policy: ColourPolicy, warn: (String) -> Void) {
        let why = policy == .keep ? "--keep-colour" : "no usable embedded profile"
        warn("\(model) with \(why): converted to RGB with the uncalibrated formula R = (1 − C)(1 − K)")
        header.colourConversion = "\(model) → RGB, uncalibrated formula"
    }
}
