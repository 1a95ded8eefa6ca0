import HTTPCore
import NIOCore
import TileGeometry

/// A IIIF image request resolved against one image (Image API 3.0 §4): the full-resolution pixels to extract, the
/// size to scale them to, the mirroring and rotation, the quality and the format — everything the renderer and the
/// canonical-tile check need, with every parameter already validated.
package struct IIIFImageRequest: Sendable, Hashable {
    /// The extracted region, in full-resolution pixels, inside the image.
    package let region: PixelRect
    /// The scaled width, before rotation (≥ 1).
    package let width: Int
    /// The scaled height, before rotation (≥ 1).
    package let height: Int
    /// Whether the scaled image is mirrored (left–right) before rotating.
    package let mirrored: Bool
    /// Clockwise quarter turns, 0…3.
    package let quarterTurns: Int
    /// The quality.
    package let quality: IIIFQuality
    /// The format.
    package let format: IIIFFormat
    /// Whether the region is the whole image (canonically `full`).
    package let isFullRegion: Bool
    /// How the canonical form writes the size.
    package let canonicalSize: CanonicalSize

    /// Parses and resolves the four parameter segments of a request for an `imageWidth` × `imageHeight` image.
    ///
    /// Syntax is checked first (all four segments), then meaning, so a malformed segment is reported as such even
    /// when another names an unimplemented feature.
    ///
    /// - Throws: ``RequestError``: 400 for malformed parameters, empty or outside regions, sizes of 0, sizes that
    ///   enlarge without `^`, sizes over `limits`, unknown qualities and formats; 501 for rotations that are not
    ///   multiples of 90° and for formats the specification defines but this server does not produce.
    package init(
        region regionText: Substring, size sizeText: Substring, rotation rotationText: Substring, qualityAndFormat: Substring,
        imageWidth: Int, imageHeight: Int, limits: IIIFLimits
    ) throws(RequestError) {
        let regionParameter = try IIIFRegion(parsing: regionText)
        let sizeParameter = try IIIFSize(parsing: sizeText)
        let rotation = try IIIFRotation(parsing: rotationText)
        let (quality, format, formatText) = try Self.qualityAndFormat(qualityAndFormat)
        region = try regionParameter.rect(width: imageWidth, height: imageHeight)
        (width, height) = try sizeParameter.resolve(region: region, limits: limits)
        quarterTurns = try rotation.quarterTurns()
        guard let format else {
            throw RequestError(
                status: .notImplemented,
                message: "format \(formatText) is not implemented: only \(IIIFFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        mirrored = rotation.mirrored
        self.quality = quality
        self.format = format
        isFullRegion = region == PixelRect(x: 0, y: 0, width: imageWidth, height: imageHeight)
        canonicalSize = Self.canonicalSize(width: width, height: height, region: region, limits: limits)
    }

    /// Parses `{quality}.{format}`: the quality, the format (`nil` for formats defined but not produced), and the
    /// format's text.
    private static func qualityAndFormat(_ text: Substring) throws(RequestError) -> (IIIFQuality, IIIFFormat?, Substring) {
        guard let dot = text.utf8.firstIndex(of: UInt8(ascii: ".")) else {
            throw .badRequest("\(text) is malformed: expected {quality}.{format}")
        }
        guard let quality = IIIFQuality(bytes: text[..<dot]) else {
            throw .badRequest("quality \(text[..<dot]) is not one of default, color, gray, bitonal")
        }
        let formatText = text[text.utf8.index(after: dot)...]
        let format = IIIFFormat(bytes: formatText)
        if format == nil && !IIIFFormat.unimplemented.contains(formatText) {
            throw .badRequest("format \(formatText) is not one of jpg, png")
        }
        return (quality, format, formatText)
    }

    /// How §4.8 writes a `width` × `height` scaling of `region`: `max` / `^max` when it is what those give.
    private static func canonicalSize(width: Int, height: Int, region: PixelRect, limits: IIIFLimits) -> CanonicalSize {
        let enlarges = width > region.width || height > region.height
        // The common case without the fitting arithmetic: a region within the limits, not enlarged.
        let isMax =
            !enlarges && limits.allows(width: region.width, height: region.height)
            ? (width, height) == (region.width, region.height)
            : limits.fit(width: region.width, height: region.height, growing: enlarges) == (width, height)
        switch (isMax, enlarges) {
        case (true, false): return .max
        case (true, true): return .upscaledMax
        case (false, false): return .exact
        case (false, true): return .upscaledExact
        }
    }

    /// The output image's width after rotation.
    package var outputWidth: Int { quarterTurns % 2 == 0 ? width : height }

    /// The output image's height after rotation.
    package var outputHeight: Int { quarterTurns % 2 == 0 ? height : width }

    /// Whether the request is the image's pixels as they are: no rotation, no mirroring, default quality.
    package var isPlain: Bool { quarterTurns == 0 && !mirrored && quality == .default }

    /// The canonical form of the request's parameters, `{region}/{size}/{rotation}/{quality}.{format}` (§4.8).
    package var canonicalParameters: String {
        var buffer = ByteBuffer()
        writeCanonicalParameters(into: &buffer)
        return String(buffer: buffer)
    }

    /// Writes ``canonicalParameters`` (§4.8: region `full` or `x,y,w,h`; size `max`, `^max`, `w,h` or `^w,h`;
    /// rotation `!`? and an integer; the quality; the format), without building a string first.
    package func writeCanonicalParameters(into buffer: inout ByteBuffer) {
        if isFullRegion {
            buffer.writeStaticString("full/")
        } else {
            Self.write(region.x, region.y, into: &buffer)
            buffer.writeStaticString(",")
            Self.write(region.width, region.height, into: &buffer)
            buffer.writeStaticString("/")
        }
        switch canonicalSize {
        case .max: buffer.writeStaticString("max/")
        case .upscaledMax: buffer.writeStaticString("^max/")
        case .exact, .upscaledExact:
            if canonicalSize == .upscaledExact { buffer.writeStaticString("^") }
            Self.write(width, height, into: &buffer)
            buffer.writeStaticString("/")
        }
        if mirrored { buffer.writeStaticString("!") }
        switch quarterTurns {
        case 0: buffer.writeStaticString("0/")
        case 1: buffer.writeStaticString("90/")
        case 2: buffer.writeStaticString("180/")
        default: buffer.writeStaticString("270/")
        }
        buffer.writeString(quality.rawValue)
        buffer.writeStaticString(".")
        buffer.writeString(format.rawValue)
    }

    /// Writes `first,second` in decimal.
    private static func write(_ first: Int, _ second: Int, into buffer: inout ByteBuffer) {
        writeDecimal(first, into: &buffer)
        buffer.writeInteger(UInt8(ascii: ","))
        writeDecimal(second, into: &buffer)
    }

    /// Writes the non-negative `value` in decimal digits, straight into the buffer.
    private static func writeDecimal(_ value: Int, into buffer: inout ByteBuffer) {
        var digits = 1
        var rest = value / 10
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: digits) { bytes in
            var rest = value
            for index in stride(from: digits - 1, through: 0, by: -1) {
                bytes[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            return digits
        }
    }

    /// How the canonical URI writes a resolved size (§4.8).
    package enum CanonicalSize: Sendable, Hashable {
        /// `max`: the region's size, fitted to the limits without enlarging.
        case max
        /// `^max`: the region enlarged to the limits.
        case upscaledMax
        /// `w,h`, not enlarging.
        case exact
        /// `^w,h`, enlarging.
        case upscaledExact
    }
}
