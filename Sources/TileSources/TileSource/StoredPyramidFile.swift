import ImageCodecs
import Slicing

/// A pyramidal TIFF, known by what the catalog read when it found the file (its levels, colour profile and facts) and
/// opened again only when a tile is asked for, through the server's shared ``StoredFileCache`` — so a catalog of any
/// size holds at most the cache's capacity of these files open. (Slides keep their OpenSlide handles in their own
/// table, ``SlideHandles``.)
///
/// The file opened must be the one the catalog listed (same device, inode, size and modification time): a file
/// replaced since is refused with an error for the tile, and the next rescan lists the new one under a new version.
package struct StoredPyramidFile: StoredPyramid {
    /// The catalog entry's ``CatalogImage/id`` (the cache's key).
    package let image: Int
    /// The file's real path (inside ROOT).
    package let path: String
    package let storedLevels: [StoredLevel]
    package let colourProfile: [UInt8]?
    package let facts: ImageFacts
    package let identity: TIFFPyramid.FileIdentity
    package let slideExtras: SlidePyramid?
    /// A sliced slide's properties, recorded as the full-resolution image's ImageDescription (`tiler slice`'s TIFF,
    /// `vips tiffsave --properties`); nil when the description is not that XML.
    package let recorded: PyramidProperties?
    /// The associated images the file keeps as directories of their own (a sliced slide's, ``TIFFPyramid/associatedImages``),
    /// by kind, sorted.
    package let keptAssociated: [String]
    private let cache: StoredFileCache

    /// Describes `opened` (just opened by the catalog, and closed again once this is made) as entry `image`'s file at
    /// `path`, reopened later through `cache`. An Aperio SVS is also opened with OpenSlide, for its properties and
    /// associated images (its tiles stay the TIFF source's); other TIFFs are not, so a catalog of thousands of plain
    /// pyramidal TIFFs costs no OpenSlide opening each.
    package init(image: Int, path: String, describing opened: TIFFPyramid, cache: StoredFileCache) {
        self.image = image
        self.path = path
        self.storedLevels = opened.storedLevels
        self.colourProfile = opened.colourProfile
        self.identity = opened.identity
        self.cache = cache
        let extras = opened.layout == .aperio ? try? SlidePyramid(path: path) : nil
        let description = TIFFDescription(opened, extras: extras)
        self.facts = description.facts
        self.recorded = description.recorded
        self.keptAssociated = description.keptAssociated
        self.slideExtras = extras
    }

    /// Associated image `kind` (one of ``keptAssociated``) as the JPEG file stored. Blocking.
    ///
    /// - Throws: ``RenderError`` when the file cannot be opened again or is no longer the file listed,
    ///   ``TIFFPyramidError`` when the image cannot be read.
    package func keptAssociatedJPEG(_ kind: String) throws -> [UInt8] {
        guard let tiff = try opened() as? TIFFPyramid else { throw RenderError(message: "\(path) is no TIFF") }
        return try tiff.associatedJPEG(kind)
    }

    package func jpegTile(level: Int, column: Int, row: Int) throws -> [UInt8] {
        try opened().jpegTile(level: level, column: column, row: row)
    }

    package func jpegTileIfCached(level: Int, column: Int, row: Int) throws -> [UInt8]? {
        try opened().jpegTileIfCached(level: level, column: column, row: row)
    }

    package func jpegTileFile(level: Int, column: Int, row: Int) throws -> StoredTileFile? {
        try opened().jpegTileFile(level: level, column: column, row: row)
    }

    package func decodeTile(level: Int, column: Int, row: Int, into pixels: UnsafeMutableRawBufferPointer) throws {
        try opened().decodeTile(level: level, column: column, row: row, into: pixels)
    }

    /// The file, open: held by the cache, or opened now and checked to be the file the catalog listed.
    ///
    /// - Throws: ``RenderError`` when the file cannot be opened or is no longer that file.
    private func opened() throws -> any StoredPyramid {
        try cache.pyramid(image: image) { () throws(RenderError) -> any StoredPyramid in
            let pyramid: TIFFPyramid
            do throws(TIFFPyramidError) {
                pyramid = try TIFFPyramid(path: path)
            } catch {
                throw RenderError(message: "\(path) cannot be opened again: \(error.reason)")
            }
            guard pyramid.identity == identity else {
                cache.noteChangedFile()
                throw RenderError(message: "\(path) was replaced since it was listed")
            }
            return pyramid
        }
    }
}
