import JSONText
import Rendering
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
    /// - Parameters:
    ///   - authBase: For a private image, the service's base URL: the document then lists the Authorization Flow
    ///     services (``IIIFAuth``).
    ///   - micronsPerPixel: The physical size of a full-resolution pixel, when the image says it (a slide's, a TIFF's
    ///     resolution): the document then lists a physical dimensions service (``physicalScale(micronsPerPixel:)``).
    static func json(
        id: String, pyramid: Pyramid, tileFormat: IIIFFormat?, limits: IIIFLimits, authBase: String? = nil,
        micronsPerPixel: (x: Double, y: Double)? = nil
    ) -> String {
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
            let scale = micronsPerPixel.flatMap(physicalScale(micronsPerPixel:))
            if authBase != nil || scale != nil {
                writer.key("service")
                writer.openArray()
                if let authBase { IIIFAuth.writeProbeService(into: &writer, imageID: id, base: authBase) }
                if let scale {
                    // The annex's service as IIIF viewers' rulers look for it (by its profile), in millimetres: the
                    // smallest unit it has.
                    writer.openObject()
                    writer.member("@context", physicalDimensionsContext)
                    writer.member("profile", physicalDimensionsProfile)
                    writer.member("physicalScale", scale)
                    writer.member("physicalUnits", "mm")
                    writer.closeObject()
                }
                writer.closeArray()
            }
            writer.closeObject()
        }
    }

    /// The JSON-LD context of the IIIF physical dimensions service (IIIF's services annex).
    static let physicalDimensionsContext = "http://iiif.io/api/annex/services/physdim/1/context.json"
    /// The profile that names that service.
    static let physicalDimensionsProfile = "http://iiif.io/api/annex/services/physdim"

    /// Millimetres per pixel for the physical dimensions service, which has one scale for both axes: their mean when
    /// they agree within 1 %, else nil (a pixel that is not square is not described rather than described wrongly).
    static func physicalScale(micronsPerPixel mpp: (x: Double, y: Double)) -> Double? {
        guard mpp.x > 0, mpp.y > 0, mpp.x.isFinite, mpp.y.isFinite, abs(mpp.x - mpp.y) <= 0.01 * max(mpp.x, mpp.y) else { return nil }
        return (mpp.x + mpp.y) / 2 / 1000
    }
}
