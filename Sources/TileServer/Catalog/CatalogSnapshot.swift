import NIOCore
import Synchronization
import TileGeometry

/// One published state of the catalog: the served images by name and sorted by name, from which `/api/images`
/// answers are made. Immutable but for the whole list's JSON, built on first request (a catalog of 100,000 pyramids
/// makes a 20 MB list: it is built only if asked for, and once per catalog change).
final class CatalogSnapshot: Sendable {
    /// The served images, by name.
    let images: [Substring: CatalogImage]
    /// The same images, sorted by name: what the list and its pages show.
    let sorted: [CatalogImage]
    private let wholeList = Mutex<ByteBuffer?>(nil)

    /// A snapshot of `images`. O(n log n) in the images (the sort).
    init(images: [Substring: CatalogImage]) {
        self.images = images
        self.sorted = images.values.sorted { $0.name < $1.name }
    }

    /// The body of `GET /api/images`: every image, as a JSON array. Built at the first call (O(n) in the images),
    /// then shared.
    var listJSON: ByteBuffer {
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
    func page(offset: Int, limit: Int) -> ByteBuffer {
        let start = min(max(offset, 0), sorted.count)
        let end = start + min(max(limit, 0), sorted.count - start)
        return Self.json(sorted[start..<end])
    }

    /// `images` as the JSON array `/api/images` answers. O(n).
    static func json(_ images: ArraySlice<CatalogImage>) -> ByteBuffer {
        let text = JSONWriter.text(capacity: 64 + images.count * 160) { writer in
            writer.openArray()
            for image in images {
                let descriptor = image.descriptor
                writer.openObject()
                writer.member("name", image.name)
                writer.member("width", descriptor.width)
                writer.member("height", descriptor.height)
                writer.member("tileSize", descriptor.tileSize)
                writer.member("overlap", descriptor.overlap)
                writer.member("format", descriptor.format)
                writer.member("maxLevel", image.pyramid.maxLevel)
                writer.member("version", image.version)
                writer.member("dzi", image.versionedPrefix + ".dzi")
                writer.closeObject()
            }
            writer.closeArray()
        }
        return ByteBuffer(string: text)
    }
}
