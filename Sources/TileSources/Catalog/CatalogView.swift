/// One event loop's copy of the catalog's image table: a lookup is a dictionary lookup after one atomic load (has the
/// catalog changed?), with no lock shared with the other loops. Not thread-safe: used on its loop only.
package final class CatalogView {
    private let catalog: ImageCatalog
    // Touched by this class's own methods only, on one event loop, none calling out while it holds an access: the
    // runtime's exclusivity checks (about 75 instructions an access) would guard nothing.
    @exclusivity(unchecked) private var images: [Substring: CatalogImage] = [:]
    /// The catalog version `images` was copied at (-1: never).
    @exclusivity(unchecked) private var version = -1
    /// The image found last and the name it was found by, in this version: a connection asks for one image's tiles
    /// many times in a row, and comparing a name costs a fraction of hashing it.
    @exclusivity(unchecked) private var last: (name: Substring, image: CatalogImage)?

    /// Creates a view of `catalog`; it copies the table at its first lookup.
    package init(catalog: ImageCatalog) {
        self.catalog = catalog
    }

    /// The image named `name`, if served, as of the catalog's last rescan.
    ///
    /// - Complexity: O(1) for short names (comparing `name` with the last one found, else hashing it); O(n) in the
    ///   images when the catalog changed.
    package func image(named name: Substring) -> CatalogImage? {
        catchUp()
        if let last, last.name == name { return last.image }
        guard let image = images[name] else { return nil }
        last = (name, image)
        return image
    }

    /// The catalog version this view shows, after catching up with the catalog: what was decided from the catalog
    /// and a request holds for the same request as long as this stays the same. O(1) unless the catalog changed.
    package var currentVersion: Int {
        catchUp()
        return version
    }

    private func catchUp() {
        if let changed = catalog.images(changedSince: version) {
            images = changed.images
            version = changed.version
            last = nil
        }
    }

    /// The image a URL's name means: `NAME@VERSION` (versioned, current or stale) or `NAME` (unversioned). A name
    /// that itself ends in `@` and 12 hex digits is found under its whole self when no image has the shorter name.
    ///
    /// - Complexity: one or two dictionary lookups (see ``image(named:)``).
    package func resolve(_ name: Substring) -> ImageLookup {
        let utf8 = name.utf8
        if utf8.count > PyramidVersion.length + 1 {
            let at = utf8.index(utf8.endIndex, offsetBy: -(PyramidVersion.length + 1))
            if utf8[at] == UInt8(ascii: "@") {
                let version = name[utf8.index(after: at)...]
                if PyramidVersion.isVersion(version), let image = image(named: name[..<at]) {
                    return image.version == version ? .current(image, versioned: true) : .stale(image)
                }
            }
        }
        if let image = image(named: name) { return .current(image, versioned: false) }
        return .missing
    }
}

/// What ``CatalogView/resolve(_:)`` found for a name from a URL.
package enum ImageLookup {
    /// The image; `versioned` when the URL named its current version (answers may be cached forever).
    case current(CatalogImage, versioned: Bool)
    /// The image exists, but the URL names a version it no longer has (it was re-sliced).
    case stale(CatalogImage)
    /// No such image.
    case missing
}
