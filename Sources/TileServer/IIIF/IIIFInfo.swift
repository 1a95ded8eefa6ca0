import JSONText
import TileGeometry

/// The image information document of a pyramid (Image API 3.0 §5).
enum IIIFInfo {
    /// The JSON-LD context of version 3.
    static let context = "http://iiif.io/api/image/3/context.json"
    /// The profile document of level 2, for `Link: <…>;rel="profile"`.
    static let profileDocument = "http://iiif.io/api/image/3/level2.json"
    /// The qualities served besides `default`.
    static let extraQualities = ["color", "gray", "bitonal"]
    /// The formats offered beyond the level-2 compliance's jpg and png.
    static let extraFormats = ["webp"]
    /// Every feature served, level 2's and the optional ones (mirroring, upscaling, the link headers).
    static let features = [
        "baseUriRedirect", "canonicalLinkHeader", "cors", "jsonldMediaType", "mirroring", "profileLinkHeader", "regionByPct",
        "regionByPx", "regionSquare", "rotationBy90s", "sizeByConfinedWh", "sizeByH", "sizeByPct", "sizeByW", "sizeByWh",
        "sizeUpscaling",
    ]

    /// The document for `pyramid` served at `id` (its base URI): size, limits, the tile size with one scale factor
    /// per level, as `sizes` the levels that fit in one tile (each one a stored tile), and as `preferredFormats` the
    /// tiles' own format (OpenSeadragon then asks for tiles in it, which are served as stored).
    ///
    /// - Parameter authBase: For a private image, the service's base URL: the document then lists the
    ///   Authorization Flow services (``IIIFAuth``).
    static func json(id: String, pyramid: Pyramid, tileFormat: IIIFFormat?, limits: IIIFLimits, authBase: String? = nil) -> String {
        JSONWriter.text(capacity: 1024) { writer in
            writer.openObject()
            writer.member("@context", context)
            writer.member("id", id)
            writer.member("type", "ImageService3")
            writer.member("protocol", "http://iiif.io/api/image")
            writer.member("profile", "level2")
            writer.member("width", pyramid.width)
            writer.member("height", pyramid.height)
            writer.member("maxWidth", limits.maxWidth)
            writer.member("maxHeight", limits.maxHeight)
            writer.member("maxArea", limits.maxArea)
            writer.key("sizes")
            writer.openArray()
            for level in 0...pyramid.maxLevel {
                let size = pyramid.levelSize(level)
                if size.width <= pyramid.tileSize && size.height <= pyramid.tileSize {
                    writer.openObject()
                    writer.member("width", size.width)
                    writer.member("height", size.height)
                    writer.closeObject()
                }
            }
            writer.closeArray()
            writer.key("tiles")
            writer.openArray()
            writer.openObject()
            writer.member("width", pyramid.tileSize)
            writer.key("scaleFactors")
            writer.openArray()
            for level in 0...pyramid.maxLevel { writer.value(1 << level) }
            writer.closeArray()
            writer.closeObject()
            writer.closeArray()
            if let tileFormat {
                writer.key("preferredFormats")
                writer.openArray()
                writer.value(tileFormat.rawValue)
                writer.closeArray()
            }
            writer.key("extraFormats")
            writer.openArray()
            for format in extraFormats { writer.value(format) }
            writer.closeArray()
            writer.key("extraQualities")
            writer.openArray()
            for quality in extraQualities { writer.value(quality) }
            writer.closeArray()
            writer.key("extraFeatures")
            writer.openArray()
            for feature in features { writer.value(feature) }
            writer.closeArray()
            if let authBase { IIIFAuth.writeServices(into: &writer, imageID: id, base: authBase) }
            writer.closeObject()
        }
    }
}
