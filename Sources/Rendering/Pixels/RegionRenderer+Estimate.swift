import TileGeometry

extension RegionRenderer {
    /// The most memory rendering `request` from `pyramid` (tiles stored as `tileFormat`) takes, in bytes, as the
    /// ``RenderBudget`` counts it: the output pixels (width × height × channels), the encoded body (as much again
    /// for PNG, whose worst case is about the pixels; half that for the lossy JPEG and WebP, whose 4:2:0 input is
    /// already half the pixels), and the band of level pixels read (the region's width at the level read × one tile
    /// row). Channels are the most the output can have: one (gray,
    /// bitonal) or three, plus alpha unless the tiles are JPEG.
    ///
    /// - Complexity: O(log of the image size), choosing the level.
    package static func estimatedBytes(for request: IIIFImageRequest, in pyramid: Pyramid, tileFormat: IIIFFormat?) -> Int {
        let gray = request.quality == .gray || request.quality == .bitonal
        let channels = (gray ? 1 : 3) + (tileFormat == .jpg ? 0 : 1)
        let pixels = request.width * request.height * channels
        let (_, scale) = level(for: request, in: pyramid)
        let band = (request.region.width / scale + 2) * pyramid.tileSize * channels
        let body = request.format == .png ? pixels : pixels / 2
        return pixels + body + band
    }
}
