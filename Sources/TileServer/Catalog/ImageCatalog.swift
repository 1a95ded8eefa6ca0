import Logging
import NIOCore
import Synchronization
import TileGeometry

/// The pyramids under ROOT, kept current by ``rescan()``: a pyramid is served once its `.dzi` parses and its
/// `{name}_files/` folder exists, and stops being served when either disappears. Names are the `.dzi` path relative
/// to ROOT without `.dzi` (`maps/city` for `ROOT/maps/city.dzi`), so two pyramids never clash.
///
/// Scans build the next snapshot off to the side (they block on the file system: run them on a thread pool) and
/// publish it under a lock; event loops look images up in their own ``CatalogView``, which copies the image table
/// when the catalog's version moves.
final class ImageCatalog: Sendable {
    /// ROOT's real path.
    let root: String
    private let maxDepth: Int
    private let logger: Logger
    private let snapshot = Mutex(CatalogSnapshot(images: [:]))
    private let scanState = Mutex(ScanState())
    /// Bumped after each change of the snapshot, so that ``CatalogView``s notice with one atomic load.
    private let version = Atomic<Int>(0)

    /// Creates an empty catalog of `root` (a real path); call ``rescan()`` to fill it.
    init(root: String, maxDepth: Int, logger: Logger) {
        self.root = root
        self.maxDepth = maxDepth
        self.logger = logger
    }

    /// The image table and its version when the catalog has changed since `seen` (`nil` when it has not).
    func images(changedSince seen: Int) -> (images: [Substring: CatalogImage], version: Int)? {
        let current = version.load(ordering: .acquiring)
        guard current != seen else { return nil }
        return (snapshot.withLock { $0.images }, current)
    }

    /// The served images, by name.
    var images: [CatalogImage] {
        snapshot.withLock { Array($0.images.values) }.sorted { $0.name < $1.name }
    }

    /// How many images are served.
    var count: Int { snapshot.withLock { $0.images.count } }

    /// The body of `GET /api/images`, rebuilt when the catalog changes.
    var listJSON: ByteBuffer { snapshot.withLock { $0.listJSON } }

    /// Walks ROOT and updates the catalog; returns the images that appeared and those that disappeared (a rewritten
    /// `.dzi` is both: the old entry is removed and a new one, with a new id, added). Removed entries are retired.
    ///
    /// Blocking; scans are serialised.
    @discardableResult
    func rescan() -> (added: [CatalogImage], removed: [CatalogImage]) {
        scanState.withLock { state in
            let previous = snapshot.withLock { $0.images }
            var next: [Substring: CatalogImage] = [:]
            var added: [CatalogImage] = []
            for found in DirectoryWalker.descriptors(under: root, maxDepth: maxDepth) {
                if let image = resolve(found, previous: previous[found.name[...]], state: &state) {
                    next[image.name[...]] = image
                    if image !== previous[found.name[...]] { added.append(image) }
                }
            }
            let removed = previous.values.filter { next[$0.name[...]] !== $0 }
            guard !added.isEmpty || !removed.isEmpty else { return ([], []) }
            let updated = CatalogSnapshot(images: next)
            snapshot.withLock { $0 = updated }
            version.add(1, ordering: .releasing)
            for image in removed {
                image.retire()
                logger.info("Stopped serving \(image.name)")
            }
            for image in added {
                logger.info("Serving \(image.name) (\(image.pyramid.width)×\(image.pyramid.height), \(image.descriptor.format))")
            }
            return (added, removed)
        }
    }

    /// The entry for `found`: the previous one if its `.dzi` is unchanged and its tiles folder still there, else a
    /// fresh one, or `nil` when it does not (yet) qualify.
    private func resolve(_ found: DirectoryWalker.Found, previous: CatalogImage?, state: inout ScanState) -> CatalogImage? {
        guard let signature = FileSignature(path: found.path) else { return nil }
        if let previous, previous.signature == signature, FileSignature.isDirectory(previous.filesDirectory) {
            return previous
        }
        if state.rejected[found.path] == signature { return nil }
        do {
            let image = try load(found, signature: signature, id: state.nextID)
            state.nextID += 1
            return image
        } catch let error as CatalogError {
            if error.permanent {
                state.rejected[found.path] = signature
                logger.warning("Skipping \(found.name).dzi: \(error.message)")
            }
            return nil
        } catch {
            return nil
        }
    }

    private func load(_ found: DirectoryWalker.Found, signature: FileSignature, id: Int) throws -> CatalogImage {
        guard let real = PathContainment.realPath(found.path), PathContainment.isInside(real, root: root) else {
            throw CatalogError(message: "it resolves outside the served folder", permanent: true)
        }
        let file: LoadedFile
        do {
            file = try FileLoader.load(real, inside: root, maxBytes: 1 << 20)
        } catch {
            throw CatalogError(message: error.message, permanent: error.kind != .notFound)
        }
        let xml = String(decoding: file.buffer.readableBytesView.dropFirst(file.bodyOffset), as: UTF8.self)
        let descriptor: DZIDescriptor
        do {
            descriptor = try DZIDescriptor(xml: xml)
        } catch {
            throw CatalogError(message: error.message, permanent: true)
        }
        let filesPath = String(found.path.dropLast(4)) + "_files"
        guard let files = PathContainment.realPath(filesPath), PathContainment.isInside(files, root: root), FileSignature.isDirectory(files) else {
            // Not yet (a slice still being published) or a tiles folder pointing out of ROOT: look again next scan.
            throw CatalogError(message: "no tiles folder", permanent: false)
        }
        return CatalogImage(
            id: id, name: found.name, descriptor: descriptor, root: root, filesDirectory: files, descriptorFile: file, signature: signature)
    }
}

/// What a lookup sees: the served images by name, and the list answer built from them.
private struct CatalogSnapshot: Sendable {
    let images: [Substring: CatalogImage]
    let listJSON: ByteBuffer

    init(images: [Substring: CatalogImage]) {
        self.images = images
        let list = JSONWriter.text(capacity: 64 + images.count * 160) { writer in
            writer.openArray()
            for image in images.values.sorted(by: { $0.name < $1.name }) {
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
        listJSON = ByteBuffer(string: list)
    }
}

/// What scans remember between runs: the next id, and descriptors already reported as unusable (by signature, so a
/// fixed file is looked at again).
private struct ScanState {
    var nextID = 1
    var rejected: [String: FileSignature] = [:]
}

/// Why a found `.dzi` is not served; `permanent` ones are logged once and skipped until the file changes.
private struct CatalogError: Error {
    let message: String
    let permanent: Bool
}
