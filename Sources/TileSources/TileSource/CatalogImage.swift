import HTTPCore
import NIOCore
import Slicing
import Synchronization
import TileGeometry

/// One pyramid being served: its descriptor, where its tiles are, and what its responses need, prepared once when
/// the catalog finds it.
package final class CatalogImage: Sendable {
    /// Unique for the server's lifetime; a re-sliced or re-added pyramid gets a new one.
    package let id: Int
    /// The name in URLs: the `.dzi` file's path relative to ROOT without `.dzi`, e.g. `maps/city`.
    package let name: String
    /// The name of the file the descriptor really is (its real path relative to ROOT, without extension): the name
    /// itself, unless the descriptor is a symlink. The access policy applies to both.
    package let realName: String
    /// The name the tiles folder's real path implies (relative to ROOT, without `_files`): the name itself, unless
    /// `NAME_files` is a symlink — into another image's tiles, say, whose access the policy then applies too.
    package let tilesRealName: String
    /// The descriptor as parsed.
    package let descriptor: DZIDescriptor
    /// The pyramid's geometry.
    package let pyramid: Pyramid
    /// Where the tiles come from (a folder of tile files, an SZI, a pyramid stored in one file and read in place).
    package let source: any TileSource
    /// The real path of ROOT: no tile is read from outside it (a symlink may lead elsewhere inside it).
    package let root: String
    /// The `.dzi` descriptor's bytes, ready to send (the file's, or made for a pyramid stored in one file).
    package let descriptorFile: LoadedFile
    /// The `.dzi` file's identity when it was read, to notice rewrites.
    package let signature: FileSignature
    /// `/images/{name}` with the name percent-encoded: the prefix of the image's unversioned URLs (they work, but
    /// revalidate).
    package let urlPrefix: String
    /// 12 hex digits that change whenever the pyramid is re-sliced (see ``PyramidVersion``): the `@version` in the
    /// image's versioned URLs.
    package let version: String
    /// `/images/{name}@{version}`: the prefix of the URLs the server hands out, whose answers are immutable.
    package let versionedPrefix: String
    /// What a folder pyramid or an SZI records of its source (`vips-properties.xml`, an SZI's `scan-properties.xml`):
    /// a sliced slide's properties, whether `tiler slice` or `vips dzsave` sliced it. Nil when it records none.
    package let recorded: PyramidProperties?
    /// The associated images a sliced slide's folder pyramid or SZI (`NAME_files/associated/KIND.jpg`) or TIFF (a
    /// directory each, ``StoredPyramidFile/keptAssociated``) keeps, sorted.
    package let keptAssociated: [String]
    private let served = Atomic<Bool>(true)

    /// Creates an entry for a folder pyramid whose level folders are opened through `directories`; the catalog is the
    /// only producer.
    package convenience init(
        id: Int, name: String, descriptor: DZIDescriptor, root: String, filesDirectory: String, descriptorFile: LoadedFile,
        signature: FileSignature, directories: LevelDirectoryCache, realName: String? = nil, tilesRealName: String? = nil,
        recorded: PyramidProperties? = nil, keptAssociated: [String] = []
    ) {
        let levels = LevelDirectories(
            image: id, filesDirectory: filesDirectory, root: root, maxLevel: descriptor.pyramid.maxLevel, cache: directories)
        self.init(
            id: id, name: name, descriptor: descriptor, root: root, source: FolderTiles(directory: filesDirectory, levels: levels),
            descriptorFile: descriptorFile, signature: signature, realName: realName, tilesRealName: tilesRealName, recorded: recorded,
            keptAssociated: keptAssociated)
    }

    /// Creates an entry whose tiles come from `source`; `companions` are the identities of the other files a slide is
    /// read from (part of the version).
    package init(
        id: Int, name: String, descriptor: DZIDescriptor, root: String, source: any TileSource, descriptorFile: LoadedFile, signature: FileSignature,
        companions: [FileSignature?] = [], realName: String? = nil, tilesRealName: String? = nil, recorded: PyramidProperties? = nil,
        keptAssociated: [String] = []
    ) {
        self.id = id
        self.name = name
        self.realName = realName ?? name
        self.tilesRealName = tilesRealName ?? realName ?? name
        self.descriptor = descriptor
        self.pyramid = descriptor.pyramid
        self.source = source
        self.root = root
        self.descriptorFile = descriptorFile
        self.signature = signature
        self.urlPrefix = "/images/" + PercentEncoding.encodePath(name)
        self.version = PyramidVersion.of(descriptorFile: descriptorFile, signature: signature, companions: companions)
        self.versionedPrefix = urlPrefix + "@" + version
        self.recorded = recorded
        self.keptAssociated = keptAssociated
    }

    /// The names the access policy applies to (all of them must be public for the image to be, and a token must
    /// grant all of them): the name, the descriptor's real name and the tiles folder's.
    package var accessNames: [String] { [name, realName, tilesRealName] }

    /// Whether the catalog still serves this entry (false once removed or replaced).
    package var isServed: Bool { served.load(ordering: .relaxed) }

    /// Marks the entry as no longer served.
    package func retire() { served.store(false, ordering: .relaxed) }

    /// Whether `address` names a tile of the pyramid.
    package func contains(_ address: TileAddress) -> Bool {
        guard address.level >= 0 && address.level <= pyramid.maxLevel else { return false }
        let grid = pyramid.grid(address.level)
        return address.column >= 0 && address.column < grid.columns && address.row >= 0 && address.row < grid.rows
    }

    /// What the file says about the image beyond its pixels: a stored pyramid's own, else what the pyramid records of
    /// its source (``recorded``), else nothing.
    package var facts: ImageFacts {
        if let own = source.facts { return own }
        var facts = recorded.map(ImageFacts.init(recorded:)) ?? ImageFacts()
        facts.associated = keptAssociated
        return facts
    }

    /// Whether the image has associated images to list: a slide's own, or those its sliced pyramid keeps.
    package var hasAssociated: Bool { slideExtras != nil || !keptAssociated.isEmpty }

    /// Every property of the image by name, for `/api/images/NAME/properties`: a slide's (OpenSlide's), else the
    /// recorded ones; nil when it has neither.
    package var properties: [String: String]? {
        slideExtras?.properties ?? recorded?.values
    }

    /// The slide whose properties and associated images this image has (see ``TileSource/slideExtras``).
    package var slideExtras: SlidePyramid? { source.slideExtras }

    /// The versioned URL of tile (`level`, `column`, `row`).
    package func tileURL(level: Int, column: Int, row: Int) -> String {
        "\(versionedPrefix)_files/\(level)/\(column)_\(row).\(descriptor.format)"
    }
}
