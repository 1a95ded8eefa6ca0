import CLCMS

/// Converts pixel rows from a source colour space to sRGB with Little CMS 2: relative colorimetric intent with
/// black-point compensation. Output rows are 8-bit; a gray source stays gray (with sRGB's tone curve), alpha is
/// copied. 16-bit input is converted at full depth before it becomes 8-bit.
///
/// Format-independent: build it from ICC bytes (``init(iccProfile:input:)``) or from PNG-style gamma and
/// chromaticities (``init(gamma:chromaticities:input:)``) and call ``apply(_:to:pixels:)`` per row. Converting
/// only reads the transform, so several threads may convert disjoint rows at once. Untagged images need none — create no transform
/// for them.
public final class ColourTransform: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The source layout this transform was built for.
    public let input: ColourInput

    /// Builds a transform from an ICC profile's bytes.
    /// - Throws: ``ColourError`` with a one-line reason when the profile is malformed, unsupported (device link,
    ///   named colour) or for another colour model than `input`. O(profile size) plus table set-up (~1 ms).
    public init(iccProfile: [UInt8], input: ColourInput) throws(ColourError) {
        var message = [CChar](repeating: 0, count: 512)
        var shim = input.shim
        let made = iccProfile.withUnsafeBytes { bytes in
            tiler_lcms_create_from_icc(bytes.baseAddress, bytes.count, &shim, &message, message.count)
        }
        guard let made else { throw ColourError(Self.text(message)) }
        self.handle = made
        self.input = input
    }

    /// Builds a transform from PNG `gAMA` / `cHRM` values: `gamma` is the file gamma (e.g. 0.45455; nil: sRGB's
    /// curve); `chromaticities` white x, y then red, green, blue x, y (nil: sRGB's primaries).
    /// - Throws: ``ColourError`` for values lcms cannot build a profile from.
    public init(gamma: Double?, chromaticities: [Double]?, input: ColourInput) throws(ColourError) {
        var message = [CChar](repeating: 0, count: 512)
        var shim = input.shim
        let made: OpaquePointer?
        if let chromaticities, chromaticities.count == 8 {
            made = chromaticities.withUnsafeBufferPointer { values in
                tiler_lcms_create_from_chunks(gamma ?? 0, values.baseAddress, &shim, &message, message.count)
            }
        } else {
            made = tiler_lcms_create_from_chunks(gamma ?? 0, nil, &shim, &message, message.count)
        }
        guard let made else { throw ColourError(Self.text(message)) }
        self.handle = made
        self.input = input
    }

    deinit { tiler_lcms_destroy(handle) }

    /// Samples per output pixel: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA (8 bits each).
    public var outputChannels: Int { Int(tiler_lcms_output_channels(handle)) }

    /// `"lcms"`; `"lcms gray table"` for 8-bit gray sources: 256 values computed by lcms's unoptimised
    /// floating-point transform when the transform is built (its optimised integer gray path is coarse near black);
    /// `"matrix tables"` or `"matrix tables (AVX2)"` for 8-bit matrix-shaper RGB sources (Adobe RGB, ProPhoto,
    /// PNG gAMA/cHRM): curves, a 3×3 matrix and sRGB's curve as tables, checked against lcms's
    /// floating-point answer when built (within one level) and about 3.5× lcms's 8-bit speed.
    public var method: String { String(cString: tiler_lcms_method(handle)) }

    /// Converts `pixels` pixels laid out as ``input`` at `source` into 8-bit pixels at `destination`
    /// (``outputChannels`` each). The two must not overlap. O(pixels).
    public func apply(_ source: UnsafeRawPointer, to destination: UnsafeMutablePointer<UInt8>, pixels: Int) {
        precondition(pixels >= 0, "pixel count must not be negative")
        tiler_lcms_apply(handle, source, destination, pixels)
    }

    static func text(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Why a colour profile could not be used: one line, e.g. "the profile is for CMYK but the image is RGB".
public struct ColourError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The reason, without a path.
    public let message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The reason.
    public var description: String { message }
}
