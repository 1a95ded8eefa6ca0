import Archive
import Dispatch
import HTTPCore
import Logging
import ObjectSources
import ObjectStore
import Synchronization

/// One object-store root the catalog serves (`s3://BUCKET/PREFIX/`): every SZI, pyramidal TIFF (`*.tif`, `*.tiff`,
/// `*.svs`, `*.ome.tif`, …: ``PyramidFileNames/tiffExtensions``) and Deep Zoom folder its listing holds is an image,
/// named by its key without the extension (`maps/city` for `PREFIX/maps/city.szi`), as a file under ROOT would be.
/// The catalog lists the root at each rescan (``list()``: `ListObjectsV2`, every page) and opens what is new or changed
/// (``open(_:)``: one or two ranged GETs each for an SZI or a COG-layout TIFF, many at once); its version is the
/// object's ETag and size.
///
/// Blocking where it waits for the store: call it on a file thread (the catalog's scans run there).
package final class ObjectCatalog: Sendable {
    /// Where the objects are read from.
    package let reader: any ObjectReader
    /// Tiles larger than this (bytes) are refused.
    package let maxTileBytes: Int
    /// How many archives are opened at once (their first reads in flight together).
    package let openConcurrency: Int
    /// The one object a root that cannot be listed serves (a plain HTTP server's `…/NAME.szi`), or nil: the root is
    /// listed.
    package let object: String?
    private let failures: OccasionalLog
    private let listingError = Mutex<String?>(nil)
    /// Whether a listing has succeeded: before one, a failure is the start's to report (``lastListingError``), not
    /// logged here.
    private let listedOnce = Atomic<Bool>(false)

    /// A root read through `reader`; failures to list it are logged to `logger` at most once a minute.
    package init(reader: any ObjectReader, maxTileBytes: Int, logger: Logger, openConcurrency: Int = 16, object: String? = nil) {
        self.reader = reader
        self.object = object
        self.maxTileBytes = maxTileBytes
        self.openConcurrency = openConcurrency
        self.failures = OccasionalLog(logger: logger, level: .warning, interval: .seconds(60))
    }

    /// The root as typed, normalised (`s3://bucket/prefix/`, `https://host/folder/NAME.szi`).
    package var name: String { reader.name + (object ?? "") }

    /// The kinds of object a root serves.
    package enum Kind: Sendable {
        /// An SZI (`NAME.szi`, any case).
        case archive
        /// A Deep Zoom descriptor (`NAME.dzi`), served once `NAME_files/` holds objects.
        case folder
        /// A pyramidal TIFF (``PyramidFileNames/tiffExtensions``, any case): TIFF, BigTIFF, COG, OME-TIFF, Aperio SVS.
        case tiff
    }

    /// What `key` is to this catalog: the name it is served under and its kind; nil for any other object (the
    /// whole-slide formats only OpenSlide reads are not read from a store).
    package static func pyramid(_ key: String) -> (name: String, kind: Kind)? {
        guard key.utf8.count > 4, !key.hasPrefix("/"), !key.contains("//") else { return nil }
        let lower = key.lowercased()
        if lower.hasSuffix(".szi") { return (String(key.dropLast(4)), .archive) }
        if key.hasSuffix(".dzi") { return (String(key.dropLast(4)), .folder) }
        if PyramidFileNames.isTIFFFamily(key), let stem = PyramidFileNames.storedPyramidStem(key) { return (String(stem), .tiff) }
        return nil
    }

    /// What a listing found: the objects outside tiles folders, and the tiles folders (`NAME_files/`) that hold any.
    package struct Listing {
        package var objects: [ObjectInfo] = []
        package var tileFolders: Set<String> = []
    }

    /// The objects under the root, or nil when the store could not list them (logged; the catalog keeps serving what
    /// it had). An S3 root is walked a folder level at a time (`ListObjectsV2` with the delimiter `/`), so that the
    /// tiles of Deep Zoom folders — thousands of objects each — are never listed, and at most `maxDepth` levels deep.
    package func list(maxDepth: Int = 8) -> Listing? {
        let (reader, object) = (self.reader, self.object)
        let result = Result { try BlockingBridge.run { try await Self.walk(reader, object: object, maxDepth: maxDepth) } }
        switch result {
        case .success(let listing):
            listingError.withLock { $0 = nil }
            listedOnce.store(true, ordering: .relaxed)
            return listing
        case .failure(let error):
            listingError.withLock { $0 = "\(error)" }
            if listedOnce.load(ordering: .relaxed) {
                _ = failures.note("Listing \(name) failed: \(error); still serving what it held")
            }
            return nil
        }
    }

    /// The listing of ``list(maxDepth:)``.
    private static func walk(_ reader: any ObjectReader, object: String?, maxDepth: Int) async throws -> Listing {
        // A root that cannot be listed names its one object: asked for its size and version (a HEAD).
        if let object { return Listing(objects: [try await reader.info(object)]) }
        guard let s3 = reader as? S3Client else { return Listing(objects: try await reader.list(prefix: "")) }
        var listing = Listing()
        var folders: [(prefix: String, depth: Int)] = [("", 0)]
        while let (prefix, depth) = folders.popLast() {
            var token: String?
            repeat {
                let page = try await s3.listPage(prefix: prefix, delimiter: "/", continuationToken: token, on: s3.eventLoopGroup.any()).get()
                listing.objects += page.objects
                for folder in page.commonPrefixes {
                    if folder.hasSuffix("_files/") {
                        listing.tileFolders.insert(folder)
                    } else if depth < maxDepth, !folder.dropLast().split(separator: "/").last!.hasPrefix(".") {
                        folders.append((folder, depth + 1))
                    }
                }
                token = page.nextContinuationToken
            } while token != nil
        }
        return listing
    }

    /// Why the last listing failed, or nil when it succeeded (or none was tried).
    package var lastListingError: String? { listingError.withLock { $0 } }

    /// A pyramid of the root, opened: an SZI's index, a Deep Zoom folder's descriptor, or a TIFF's levels and index.
    package enum Opened: Sendable {
        case archive(ObjectSZIArchive)
        case folder(descriptor: [UInt8], info: ObjectInfo)
        case tiff(ObjectTIFFPyramid)
    }

    /// Opens each of `objects` (an SZI, a `.dzi` descriptor, a TIFF), `openConcurrency` at a time; the results in the
    /// same order.
    package func open(_ objects: [ObjectInfo]) -> [Result<Opened, ArchiveError>] {
        let reader = self.reader
        let width = openConcurrency
        let opened = try? BlockingBridge.run { () async throws -> [Result<Opened, ArchiveError>] in
            await withTaskGroup(of: (Int, Result<Opened, ArchiveError>).self) { group in
                var results = [Result<Opened, ArchiveError>?](repeating: nil, count: objects.count)
                var next = 0
                func start() {
                    let index = next
                    next += 1
                    group.addTask { (index, await Self.open(objects[index], in: reader)) }
                }
                while next < min(width, objects.count) { start() }
                for await (index, result) in group {
                    results[index] = result
                    if next < objects.count { start() }
                }
                return results.map { $0! }
            }
        }
        return opened ?? []
    }

    private static func open(_ info: ObjectInfo, in reader: any ObjectReader) async -> Result<Opened, ArchiveError> {
        do throws(ArchiveError) {
            switch pyramid(info.key)?.kind {
            case .tiff: return .success(.tiff(try await ObjectTIFFPyramid(source: ObjectByteSource(reader: reader, info: info))))
            case .folder: break
            case .archive, nil: return .success(.archive(try await ObjectSZIArchive(source: ObjectByteSource(reader: reader, info: info))))
            }
            guard info.size <= SZIArchive.maxDescriptorBytes else {
                throw ArchiveError("\(reader.name)\(info.key): a descriptor of \(info.size) bytes is over \(SZIArchive.maxDescriptorBytes)")
            }
            do {
                let bytes = try await reader.read(info.key, range: 0..<max(1, info.size), ifMatch: info.etag.isEmpty ? nil : info.etag)
                return .success(.folder(descriptor: Array(bytes.readableBytesView), info: info))
            } catch {
                throw ArchiveError("\(reader.name)\(info.key): cannot read (\(error))", underlying: error)
            }
        } catch {
            return .failure(error)
        }
    }

    /// Whether `error`, opening a pyramid, was the store's (worth trying again at the next scan) rather than the
    /// pyramid's (refused until the object changes).
    package static func isStoreFailure(_ error: ArchiveError) -> Bool {
        guard let store = error.underlying as? ObjectStoreError else { return false }
        return store.kind != .malformed
    }
}
