/// One event loop's copy of the catalog's image table: a lookup is a dictionary lookup after one atomic load (has the
/// catalog changed?), with no lock shared with the other loops. Not thread-safe: used on its loop only.
final class CatalogView {
    private let catalog: ImageCatalog
    private var images: [Substring: CatalogImage] = [:]
    /// The catalog version `images` was copied at (-1: never).
    private var version = -1

    /// Creates a view of `catalog`; it copies the table at its first lookup.
    init(catalog: ImageCatalog) {
        self.catalog = catalog
    }

    /// The image named `name`, if served, as of the catalog's last rescan.
    ///
    /// - Complexity: O(1) for short names (hashing `name`); O(n) in the images when the catalog changed.
    func image(named name: Substring) -> CatalogImage? {
        if let changed = catalog.images(changedSince: version) {
            images = changed.images
            version = changed.version
        }
        return images[name]
    }
}
