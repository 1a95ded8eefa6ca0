import HTTPCore
import JSONText
import NIOCore
import Synchronization
import TileGeometry

/// One published state of the catalog: the served images by name and sorted by name, from which `/api/images`
/// answers are made. Immutable but for the whole list's JSON, built on first request (a catalog of 100,000 pyramids
/// makes a 20 MB list: it is built only if asked for, and once per catalog change).
package final class CatalogSnapshot: Sendable {
    /// The served images, by name.
    package let images: [Substring: CatalogImage]
    /// The same images, sorted by name: what the list and its pages show.
    package let sorted: [CatalogImage]
    private let wholeList = Mutex<ByteBuffer?>(nil)

    /// A snapshot of `images`. O(n log n) in the images (the sort).
    package init(images: [Substring: CatalogImage]) {
        self.images = images
        self.sorted = images.values.sorted { $0.name < $1.name }
    }

    /// The body of `GET /api/images`: every image, as a JSON array. Built at the first call (O(n) in the images),
    /// then shared.
    package var listJSON: ByteBuffer {
        wholeList.withLock { list in
            if let list { return list }
            let built = Self.json(sorted[...])
            list = built
            return built
        }
    }

    /// Images `offset ..< offset + limit` (those that exist) of the sorted list, as a JSON array.
    ///
    /// - Complexity: O(limit).
    package func page(offset: Int, limit: Int) -> ByteBuffer {
        let start = min(max(offset, 0), sorted.count)
        let end = start + min(max(limit, 0), sorted.count - start)
        return Self.json(sorted[start..<end])
    }

    /// `images` as the JSON array `/api/images` answers, each with the `tileQuery` `signedTiles` gives it (a private
    /// image's signed tile query, for a token that grants it). O(n).
    package static func json(_ images: ArraySlice<CatalogImage>, signedTiles: ((CatalogImage) -> String?)? = nil) -> ByteBuffer {
        let text = JSONWriter.text(capacity: 64 + images.count * 160) { writer in
            writer.openArray()
            for image in images {
                writer.imageListEntry(
                    name: image.name, descriptor: image.descriptor, maxLevel: image.pyramid.maxLevel, version: image.version,
                    dzi: image.versionedPrefix + ".dzi"
                ) { writer in
                    writeFacts(image.facts, of: image, into: &writer)
                    if let query = signedTiles?(image) { writer.member("tileQuery", query) }
                }
            }
            writer.closeArray()
        }
        return ByteBuffer(string: text)
    }

    /// The members a stored pyramid, or one that records its slide's properties, adds: `vendor`, `objectivePower`,
    /// `micronsPerPixel` (`{x, y}`), `bounds` (`{x, y, width, height}`), those known; for slides `associated`
    /// (`{kind: url}`); and `properties` (a URL) for any image that has properties.
    private static func writeFacts(_ facts: ImageFacts, of image: CatalogImage, into writer: inout JSONWriter) {
        writer.slideFacts(
            vendor: facts.vendor, objectivePower: facts.objectivePower, micronsPerPixel: facts.micronsPerPixel, bounds: facts.bounds,
            unknownAsNull: false)
        let api = "/api/images/" + PercentEncoding.encodePath(image.name)
        if image.hasAssociated {
            writer.key("associated")
            writer.openObject()
            for kind in facts.associated {
                writer.member(kind, api + "/associated/" + PercentEncoding.encodePath(kind))
            }
            writer.closeObject()
        }
        if image.properties != nil { writer.member("properties", api + "/properties") }
    }
}
