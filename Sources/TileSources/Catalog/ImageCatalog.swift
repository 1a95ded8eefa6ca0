import HTTPCore
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
/// when the catalog's version moves. A scan looks again only at the descriptors of folders that changed (see
/// ``CatalogScanner``) and at those not ready yet; a scan that runs out of descriptors changes nothing.
package final class ImageCatalog: Sendable {
    /// ROOT's real path; empty when only object-store roots are served (``scansFolder`` is then false).
    package let root: String
    /// The object-store roots served beside ROOT (or alone), in the order given.
    package let objectRoots: [ObjectCatalog]
    /// How often they are listed again (a full rescan lists them at once).
    package let objectRescanInterval: TimeAmount
    /// The level folders held open for tile reads, shared by every image (see ``LevelDirectories``).
    package let directories: LevelDirectoryCache
    /// The files of pyramids stored in one file held open for tile reads, shared by every such image.
    package let storedFiles: StoredFileCache
    package let logger: Logger
    private let snapshot = Mutex(CatalogSnapshot(images: [:]))
    private let scanState: Mutex<ScanState>
    /// Scans abandoned for lack of descriptors, logged at most once a minute.
    private let shortages: OccasionalLog
    /// Bumped after each change of the snapshot, so that ``CatalogView``s notice with one atomic load.
    private let version = Atomic<Int>(0)

    /// Creates an empty catalog of `root` (a real path) whose images open their level folders through
    /// `directories`; every `fullWalkEvery`-th scan lists every folder, each with `list` (see ``CatalogScanner``).
    /// Call ``rescan()`` to fill it.
    package init(
        root: String, maxDepth: Int, logger: Logger, directories: LevelDirectoryCache = LevelDirectoryCache(capacity: 64),
        storedFiles: StoredFileCache = StoredFileCache(capacity: 64), fullWalkEvery: Int = 60,
        list: @escaping CatalogScanner.Lister = DirectoryWalker.list, objectRoots: [ObjectCatalog] = [],
        objectRescanInterval: TimeAmount = .seconds(60)
    ) {
        self.root = root
        self.objectRoots = objectRoots
        self.objectRescanInterval = objectRescanInterval
        self.directories = directories
        self.storedFiles = storedFiles
        self.logger = logger
        self.shortages = OccasionalLog(logger: logger, level: .warning, interval: .seconds(60))
        let scanner = CatalogScanner(root: root, maxDepth: maxDepth, fullWalkEvery: fullWalkEvery, list: list)
        self.scanState = Mutex(ScanState(scanner: scanner))
    }

    /// Whether a folder (ROOT) is scanned: false when only object-store roots are served.
    package var scansFolder: Bool { !root.isEmpty }

    /// The image table and its version when the catalog has changed since `seen` (`nil` when it has not).
    package func images(changedSince seen: Int) -> (images: [Substring: CatalogImage], version: Int)? {
        let current = version.load(ordering: .acquiring)
        guard current != seen else { return nil }
        return (snapshot.withLock { $0.images }, current)
    }

    /// The published state: images by name and sorted, and the list answers made from them.
    package var current: CatalogSnapshot { snapshot.withLock { $0 } }

    /// The served images, sorted by name.
    package var images: [CatalogImage] { current.sorted }

    /// How many images are served.
    package var count: Int { current.sorted.count }

    /// The body of `GET /api/images` (every image), built once per catalog change when asked for.
    package var listJSON: ByteBuffer { current.listJSON }

    /// What the last complete scan looked at.
    package var lastScanCounts: ScanCounts { scanState.withLock { $0.counts } }

    /// Walks ROOT and updates the catalog: returns the images that appeared and those that disappeared (a rewritten
    /// `.dzi` is both: the old entry is removed and a new one, with a new id, added), and the images one of whose
    /// open level folders was found outside ROOT and dropped. Removed entries are retired.
    ///
    /// Blocking; scans are serialised.
    @discardableResult
    package func rescan(full: Bool = false) -> CatalogChanges {
        // A file a read found changed in place: its folder's time did not move, so only walking every folder lists it.
        let full = storedFiles.takeChangedFile() || full
        return scanState.withLock { state in
            var result = CatalogChanges(escaped: directories.dropOutside(root: root))
            for image in result.escaped.compactMap({ id in current.sorted.first { $0.id == id } }) {
                logger.warning("A level folder of \(image.name) left the served folder: no longer read through it")
            }
            var next = snapshot.withLock { $0.images }
            if scansFolder {
                let found: CatalogScanner.Changes
                do {
                    found = try state.scanner.scan(full: full)
                } catch {
                    shortages.note("Rescanning \(root) failed: out of file descriptors; still serving the last catalog (\(count) images)")
                    return result
                }
                report(found.refused, state: &state)
                let examined = settle(found, into: &next, changes: &result, state: &state)
                state.counts = ScanCounts(scanner: state.scanner.lastCounts, descriptorsExamined: examined)
            }
            let now = NIODeadline.now()
            if full || state.objectsListed.map({ now - $0 >= objectRescanInterval }) ?? true {
                state.objectsListed = now
                settleObjects(into: &next, changes: &result, state: &state)
            }
            guard !result.added.isEmpty || !result.removed.isEmpty else { return result }
            let updated = CatalogSnapshot(images: next)
            snapshot.withLock { $0 = updated }
            version.add(1, ordering: .releasing)
            for image in result.removed { image.retire() }
            directories.removeAll(images: Set(result.removed.map(\.id)))
            storedFiles.removeAll(images: Set(result.removed.map(\.id)))
            log(result)
            return result
        }
    }

    /// Applies a scan's findings to `next`: drops what vanished, looks at every listed descriptor and at those
    /// pending from earlier scans; returns how many descriptors it looked at.
    private func settle(
        _ found: CatalogScanner.Changes, into next: inout [Substring: CatalogImage], changes: inout CatalogChanges, state: inout ScanState
    ) -> Int {
        let listed = Set(found.listed.lazy.map(\.name))
        for name in found.vanished where !listed.contains(name) {
            state.pending[name] = nil
            if let old = next.removeValue(forKey: name[...]) { changes.removed.append(old) }
        }
        let again = state.pending.values.filter { !listed.contains($0.name) }
        for descriptor in found.listed + again {
            let old = next[descriptor.name[...]]
            let outcome = resolve(descriptor, previous: old, state: &state)
            state.pending[descriptor.name] = outcome == .notYet ? descriptor : nil
            let image = outcome.image
            guard image !== old else { continue }
            next[descriptor.name[...]] = image
            if let old { changes.removed.append(old) }
            if let image { changes.added.append(image) }
        }
        return found.listed.count + again.count
    }

    /// Logs each refused name once (a warning; the log escapes what it cannot show), however often scans meet it.
    private func report(_ refused: [DirectoryWalker.Refused], state: inout ScanState) {
        for entry in refused where state.refusedReported.insert(Array((entry.path + "\u{0}" + entry.reason).utf8)).inserted {
            logger.warning("Not serving \(entry.path): \(entry.reason)")
        }
        // A bound on what is remembered: past it, names are reported again once.
        if state.refusedReported.count > 100_000 { state.refusedReported.removeAll() }
    }

    /// Logs what a scan changed: a line per image, or, beyond 50 (a big catalog's first scan), one line in all and
    /// the images' lines at debug level.
    private func log(_ changes: CatalogChanges) {
        let level: Logger.Level = changes.added.count + changes.removed.count > 50 ? .debug : .info
        if level == .debug {
            logger.info("Catalog: \(changes.added.count) image(s) added, \(changes.removed.count) removed (one line each at debug level)")
        }
        for image in changes.removed {
            logger.log(level: level, "Stopped serving \(image.name)")
        }
        for image in changes.added {
            logger.log(level: level, "Serving \(image.name) (\(image.pyramid.width)×\(image.pyramid.height), \(image.descriptor.format))")
        }
    }
}

/// What a rescan changed.
package struct CatalogChanges {
    /// Images now served that were not (new, or a new version of a replaced one).
    package var added: [CatalogImage] = []
    /// Images no longer served (now retired).
    package var removed: [CatalogImage] = []
    /// Ids of served images one of whose open level folders was found outside ROOT and dropped.
    package var escaped: Set<Int> = []

    /// The ids whose cached tiles and open tile files must go: the removed and the escaped images.
    package var withdrawn: Set<Int> { escaped.union(removed.map(\.id)) }
}

/// What one scan looked at: folders (see ``CatalogScanner/Counts``) and descriptors examined (each one or two
/// `stat`s, and a read and parse when new or changed).
package struct ScanCounts: Equatable, Sendable {
    package var scanner = CatalogScanner.Counts()
    package var descriptorsExamined = 0
}
