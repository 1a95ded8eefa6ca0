import TileGeometry

/// The image information document of a pyramid (Image API 3.0 §5), written by hand: its shape is fixed and small.
enum IIIFInfo {
    /// The JSON-LD context of version 3.
    static let context = "http://iiif.io/api/image/3/context.json"
    /// The profile document of level 2, for `Link: <…>;rel="profile"`.
    static let profileDocument = "http://iiif.io/api/image/3/level2.json"
    /// The qualities served besides `default`.
    static let extraQualities = ["color", "gray", "bitonal"]
    /// Every feature served, level 2's and the optional ones (mirroring, upscaling, the link headers).
    static let features = [
        "baseUriRedirect", "canonicalLinkHeader", "cors", "jsonldMediaType", "mirroring", "profileLinkHeader", "regionByPct",
        "regionByPx", "regionSquare", "rotationBy90s", "sizeByConfinedWh", "sizeByH", "sizeByPct", "sizeByW", "sizeByWh",
        "sizeUpscaling",
    ]

    /// The document for `pyramid` served at `id` (its base URI): size, limits, the tile size with one scale factor
    /// per level, as `sizes` the levels that fit in one tile (each one a stored tile), and as `preferredFormats` the
    /// tiles' own format (OpenSeadragon then asks for tiles in it, which are served as stored).
    static func json(id: String, pyramid: Pyramid, tileFormat: IIIFFormat?, limits: IIIFLimits) -> String {
        var sizes: [String] = []
        for level in 0...pyramid.maxLevel {
            let size = pyramid.levelSize(level)
            if size.width <= pyramid.tileSize && size.height <= pyramid.tileSize {
                sizes.append("{\"width\":\(size.width),\"height\":\(size.height)}")
            }
        }
        let scaleFactors = (0...pyramid.maxLevel).map { String(1 << $0) }.joined(separator: ",")
        let list: ([String]) -> String = { "[" + $0.map(JSONText.quoted).joined(separator: ",") + "]" }
        return "{\"@context\":\(JSONText.quoted(context)),\"id\":\(JSONText.quoted(id)),\"type\":\"ImageService3\","
            + "\"protocol\":\"http://iiif.io/api/image\",\"profile\":\"level2\","
            + "\"width\":\(pyramid.width),\"height\":\(pyramid.height),"
            + "\"maxWidth\":\(limits.maxWidth),\"maxHeight\":\(limits.maxHeight),\"maxArea\":\(limits.maxArea),"
            + "\"sizes\":[\(sizes.joined(separator: ","))],"
            + "\"tiles\":[{\"width\":\(pyramid.tileSize),\"scaleFactors\":[\(scaleFactors)]}],"
            + (tileFormat.map { "\"preferredFormats\":[\"\($0.rawValue)\"]," } ?? "")
            + "\"extraQualities\":\(list(extraQualities)),\"extraFeatures\":\(list(features))}"
    }
}
