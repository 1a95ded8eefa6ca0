import JSONText
import TileGeometry

extension JSONWriter {
    /// Writes one entry of the image list (`GET /api/images`), the one shape an image has there, published or still
    /// slicing: an object of `name`, the descriptor's `width`, `height`, `tileSize`, `overlap` and `format`, `maxLevel`,
    /// `version` and the `dzi` URL, then the members `more` adds (a published image's facts, a slicing one's job).
    package mutating func imageListEntry(
        name: String, descriptor: DZIDescriptor, maxLevel: Int, version: String, dzi: String, more: (inout JSONWriter) -> Void
    ) {
        openObject()
        member("name", name)
        member("width", descriptor.width)
        member("height", descriptor.height)
        member("tileSize", descriptor.tileSize)
        member("overlap", descriptor.overlap)
        member("format", descriptor.format)
        member("maxLevel", maxLevel)
        member("version", version)
        member("dzi", dzi)
        more(&self)
        closeObject()
    }
}
