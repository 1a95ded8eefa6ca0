import Logging

/// A kind of file the catalog serves as a pyramid, registered once in ``registered``: how a file's name says it is
/// one, how its entry (and so its ``TileSource``) is loaded, and how a refusal is logged. Serving a new kind of file
/// from ROOT is a ``TileSource`` conformance in a file of its own and one entry here; nothing else in the catalog asks
/// which kind a file is.
package struct PyramidKind: Sendable, Hashable, CustomStringConvertible {
    /// The kind's name, as logs and tests say it.
    package let name: String
    /// Which kind wins a name several files have: the lowest.
    package let rank: Int
    /// The pyramid's name when `fileName` is of this kind (the name without its extension), else nil.
    package let stem: @Sendable (_ fileName: String) -> Substring?
    /// The entry for a file found of this kind, with catalog id `id`.
    package let load: @Sendable (ImageCatalog, DirectoryWalker.Found, FileSignature, _ id: Int) throws -> CatalogImage
    /// Whether an image of this kind is read from other files too (a slide's), whose change makes a refused file worth
    /// trying again.
    package let hasCompanions: Bool
    /// The level and line a refusal of the file found is logged with.
    package let refusal: @Sendable (DirectoryWalker.Found, CatalogError) -> (level: Logger.Level, line: String)

    package var description: String { name }

    package static func == (left: PyramidKind, right: PyramidKind) -> Bool { left.rank == right.rank }

    package func hash(into hasher: inout Hasher) { hasher.combine(rank) }

    /// A `.dzi` descriptor beside its `_files` folder.
    package static let descriptor = PyramidKind(
        name: "descriptor", rank: 0, stem: { $0.hasSuffix(".dzi") && $0.utf8.count > 4 ? $0.dropLast(4) : nil },
        load: { catalog, found, signature, id in try catalog.loadDescriptor(found, signature: signature, id: id) }, hasCompanions: false,
        refusal: { found, error in (.warning, "Skipping \(found.name).dzi: \(error.message)") })

    /// An SZI (`*.szi`): a Deep Zoom pyramid in one stored ZIP, its tiles sent from the archive.
    package static let archive = PyramidKind(
        name: "archive", rank: 1, stem: { $0.lowercased().hasSuffix(".szi") && $0.utf8.count > 4 ? $0.dropLast(4) : nil },
        load: { catalog, found, signature, id in try catalog.loadArchive(found, signature: signature, id: id) }, hasCompanions: false,
        refusal: { found, error in (.warning, "Not serving \(found.path): \(error.message)") })

    /// A file that may hold a whole pyramid, read in place (`*.tif`, `*.tiff`, `*.btf`, `*.tf8`, `*.svs`,
    /// `*.ome.tif(f)`, and the whole-slide formats of ``PyramidFileNames/storedPyramidExtensions``).
    package static let storedPyramid = PyramidKind(
        name: "storedPyramid", rank: 2, stem: { PyramidFileNames.storedPyramidStem($0) },
        load: { catalog, found, signature, id in try catalog.loadStored(found, signature: signature, id: id) }, hasCompanions: true,
        // A plain striped or single-resolution TIFF is no error: `tiler slice` is for those.
        refusal: { found, error in (error.quiet ? .debug : .warning, "Not serving \(found.path) in place: \(error.message)") })

    /// Every kind, in rank order: the one registration.
    package static let registered: [PyramidKind] = [.descriptor, .archive, .storedPyramid]
}
