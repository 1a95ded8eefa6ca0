import TileGeometry

/// A IIIF image request resolved against one image (Image API 3.0 §4): the full-resolution pixels to extract, the
/// size to scale them to, the mirroring and rotation, the quality and the format — everything the renderer and the
/// canonical-tile check need, with every parameter already validated.
struct IIIFImageRequest: Sendable, Hashable {
    /// The extracted region, in full-resolution pixels, inside the image.
    let region: PixelRect
    /// The scaled width, before rotation (≥ 1).
    let width: Int
    /// The scaled height, before rotation (≥ 1).
    let height: Int
    /// Whether the scaled image is mirrored (left–right) before rotating.
    let mirrored: Bool
    /// Clockwise quarter turns, 0…3.
    let quarterTurns: Int
    /// The quality.
    let quality: IIIFQuality
    /// The format.
    let format: IIIFFormat
    /// The canonical form of the request's parameters, `{region}/{size}/{rotation}/{quality}.{format}` (§4.8).
    let canonicalParameters: String

    /// Parses and resolves the four parameter segments of a request for an `imageWidth` × `imageHeight` image.
    ///
    /// Syntax is checked first (all four segments), then meaning, so a malformed segment is reported as such even
    /// when another names an unimplemented feature.
    ///
    /// - Throws: ``RequestError``: 400 for malformed parameters, empty or outside regions, sizes of 0, sizes that
    ///   enlarge without `^`, sizes over `limits`, unknown qualities and formats; 501 for rotations that are not
    ///   multiples of 90° and for formats the specification defines but this server does not produce.
    init(
        region regionText: Substring, size sizeText: Substring, rotation rotationText: Substring, qualityAndFormat: Substring,
        imageWidth: Int, imageHeight: Int, limits: IIIFLimits
    ) throws(RequestError) {
        let regionParameter = try IIIFRegion(parsing: regionText)
        let sizeParameter = try IIIFSize(parsing: sizeText)
        let rotation = try IIIFRotation(parsing: rotationText)
        guard let dot = qualityAndFormat.firstIndex(of: ".") else {
            throw .badRequest("\(qualityAndFormat) is malformed: expected {quality}.{format}")
        }
        guard let quality = IIIFQuality(rawValue: String(qualityAndFormat[..<dot])) else {
            throw .badRequest("quality \(qualityAndFormat[..<dot]) is not one of default, color, gray, bitonal")
        }
        let formatText = qualityAndFormat[qualityAndFormat.index(after: dot)...]
        let format = IIIFFormat(rawValue: String(formatText))
        if format == nil && !IIIFFormat.unimplemented.contains(formatText) {
            throw .badRequest("format \(formatText) is not one of jpg, png")
        }
        region = try regionParameter.rect(width: imageWidth, height: imageHeight)
        (width, height) = try sizeParameter.resolve(region: region, limits: limits)
        quarterTurns = try rotation.quarterTurns()
        guard let format else {
            throw RequestError(status: .notImplemented, message: "format \(formatText) is not implemented: only jpg and png")
        }
        mirrored = rotation.mirrored
        self.quality = quality
        self.format = format
        canonicalParameters = Self.canonical(
            region: region, width: width, height: height, imageWidth: imageWidth, imageHeight: imageHeight, limits: limits,
            rotation: (mirrored ? "!" : "") + String(quarterTurns * 90), quality: quality, format: format)
    }

    /// The output image's width after rotation.
    var outputWidth: Int { quarterTurns % 2 == 0 ? width : height }

    /// The output image's height after rotation.
    var outputHeight: Int { quarterTurns % 2 == 0 ? height : width }

    /// Whether the request is the image's pixels as they are: no rotation, no mirroring, default quality.
    var isPlain: Bool { quarterTurns == 0 && !mirrored && quality == .default }

    /// §4.8: region `full` or `x,y,w,h`; size `max`, `^max`, `w,h` or `^w,h`; rotation `!`? and an integer.
    private static func canonical(
        region: PixelRect, width: Int, height: Int, imageWidth: Int, imageHeight: Int, limits: IIIFLimits, rotation: String,
        quality: IIIFQuality, format: IIIFFormat
    ) -> String {
        let full = region == PixelRect(x: 0, y: 0, width: imageWidth, height: imageHeight)
        let regionText = full ? "full" : "\(region.x),\(region.y),\(region.width),\(region.height)"
        let enlarges = width > region.width || height > region.height
        let sizeText: String
        if !enlarges && limits.fit(width: region.width, height: region.height, growing: false) == (width, height) {
            sizeText = "max"
        } else if enlarges && limits.fit(width: region.width, height: region.height, growing: true) == (width, height) {
            sizeText = "^max"
        } else {
            sizeText = (enlarges ? "^" : "") + "\(width),\(height)"
        }
        return "\(regionText)/\(sizeText)/\(rotation)/\(quality.rawValue).\(format.rawValue)"
    }
}
