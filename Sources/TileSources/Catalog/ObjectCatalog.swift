import Archive
import Dispatch
import HTTPCore
import Logging
import ObjectSources
import ObjectStore
import Synchronization

/// One object-store root the catalog serves (`s3://BUCKET/PREFIX/`): every `*.szi` its listing holds is an image,
/// named by its key without the extension (`maps/city` for `PREFIX/maps/city.szi`), as a file under ROOT would be.
/// The catalog lists the root at each rescan (``list()``: `ListObjectsV2`, every page) and opens what is new or changed
/// (``open(_:)``: one or two ranged GETs each, many at once); its version is the object's ETag and size.
///
/// Blocking where it waits for the store: call it on a file thread (the catalog's scans run there).
package final class ObjectCatalog: Sendable {
    /// Where the objects are read from.
    package let reader: any ObjectReader
    /// Tiles larger than this (bytes) are refused.
    package let maxTileBytes: Int
    /// How many archives are opened at once (their first reads in flight together).
    package let openConcurrency: Int
    private let failures: OccasionalLog
    private let listingError = Mutex<String?>(nil)

    /// A root read through `reader`; failures to list it are logged to `logger` at most once a minute.
    package init(reader: any ObjectReader, maxTileBytes: Int, logger: Logger, openConcurrency: Int = 16) {
        self.reader = reader
        self.maxTileBytes = maxTileBytes
        self.openConcurrency = openConcurrency
        self.failures = OccasionalLog(logger: logger, level: .warning, interval: .seconds(60))
    }

    /// The root as typed, normalised (`s3://bucket/prefix/`).
    package var name: String { reader.name }

    /// The image name `key` is served under, when it is a pyramid this catalog serves (`*.szi`, any case).
    package static func imageName(_ key: String) -> String? {
        guard key.utf8.count > 4, key.lowercased().hasSuffix(".szi"), !key.hasPrefix("/"), !key.contains("//") else { return nil }
        return String(key.dropLast(4))
    }

    /// The objects under the root, or nil when the store could not list them (logged; the catalog keeps serving what
    /// it had).
    package func list() -> [ObjectInfo]? {
        let reader = self.reader
        switch Self.wait({ () async throws -> [ObjectInfo] in try await reader.list(prefix: "") }) {
        case .success(let objects):
            listingError.withLock { $0 = nil }
            return objects
        case .failure(let error):
            listingError.withLock { $0 = "\(error)" }
            _ = failures.note("Listing \(name) failed: \(error); still serving what it held")
            return nil
        }
    }

    /// Why the last listing failed, or nil when it succeeded (or none was tried).
    package var lastListingError: String? { listingError.withLock { $0 } }

    /// Opens each of `objects` as an SZI, `openConcurrency` at a time; the results in the same order.
    package func open(_ objects: [ObjectInfo]) -> [Result<ObjectSZIArchive, ArchiveError>] {
        let reader = self.reader
        let width = openConcurrency
        let opened = Self.wait { () async throws -> [Result<ObjectSZIArchive, ArchiveError>] in
            await withTaskGroup(of: (Int, Result<ObjectSZIArchive, ArchiveError>).self) { group in
                var results = [Result<ObjectSZIArchive, ArchiveError>?](repeating: nil, count: objects.count)
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
        return (try? opened.get()) ?? []
    }

    private static func open(_ info: ObjectInfo, in reader: any ObjectReader) async -> Result<ObjectSZIArchive, ArchiveError> {
        do throws(ArchiveError) {
            return .success(try await ObjectSZIArchive(source: ObjectByteSource(reader: reader, info: info)))
        } catch {
            return .failure(error)
        }
    }

    /// Whether `error`, opening an archive, was the store's (worth trying again at the next scan) rather than the
    /// archive's (refused until the object changes).
    package static func isStoreFailure(_ error: ArchiveError) -> Bool {
        guard let store = error.underlying as? ObjectStoreError else { return false }
        return store.kind != .malformed
    }

    /// Runs `work` and waits for it on this thread (a file thread's, never an event loop's).
    private static func wait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let done = DispatchSemaphore(value: 0)
        let box = Mutex<Result<T, any Error>?>(nil)
        Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await work())
            } catch {
                result = .failure(error)
            }
            box.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return box.withLock { $0! }
    }
}
