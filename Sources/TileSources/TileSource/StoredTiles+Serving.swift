import ImageCodecs
import TileGeometry

extension StoredTiles {
    /// How a stored pyramid is served, wherever it lives (a file under ROOT, an object in a store): its Deep Zoom
    /// descriptor — 256-pixel tiles, overlap 0, `jpg`, or `png` where the source has alpha — and its tiles, converted
    /// to sRGB from its colour profile unless that is sRGB's (then stored JPEG tiles pass through), made at quality 85.
    /// Nil for a pyramid without levels. O(profile bytes).
    package static func serving(_ pyramid: any StoredPyramid) -> (tiles: StoredTiles, descriptor: DZIDescriptor)? {
        guard let finest = pyramid.storedLevels.first else { return nil }
        let format = finest.channels == 4 || finest.channels == 2 ? "png" : "jpg"
        let descriptor = DZIDescriptor(width: finest.width, height: finest.height, tileSize: 256, overlap: 0, format: format)
        // An sRGB profile (as `tiler slice --container tiff` records) needs no conversion: tiles pass through.
        let colour = pyramid.colourProfile.flatMap {
            SRGBProfile.isEquivalent($0, channels: finest.channels) ? nil : StoredColour(profile: $0, channels: finest.channels)
        }
        return (StoredTiles(pyramid: pyramid, colour: colour, format: format, quality: 85), descriptor)
    }
}
