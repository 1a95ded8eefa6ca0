import FoundationEssentials
import NIOCore
import ObjectStore
import TileSources

extension ServerRuntime {
    /// The object-store roots `configuration` names, each with its client: an S3 root's credentials, region, endpoint
    /// and addressing come from the AWS variables and shared files (``ObjectStore/S3Configuration/fromEnvironment(_:environment:addressingStyle:)``).
    ///
    /// - Throws: ``ServerError``, one line naming the root: not a root, a plain `https://` folder (it cannot be
    ///   listed), or a bad AWS setting. Credentials are never part of it.
    static func objectStores(_ configuration: ServerConfiguration) throws(ServerError) -> [(catalog: ObjectCatalog, client: S3Client)] {
        let environment = configuration.environment ?? ProcessInfo.processInfo.environment
        var stores: [(catalog: ObjectCatalog, client: S3Client)] = []
        for text in configuration.objectRoots {
            let parsed: ObjectStoreRoot?
            do {
                parsed = try ObjectStoreRoot.parse(text)
            } catch {
                throw ServerError("\(error)")
            }
            guard case .s3(let location) = parsed else {
                let reason = parsed == nil ? "is not an object-store root" : "is a plain HTTP folder, which cannot be listed"
                throw ServerError("\(text) \(reason): give s3://BUCKET/PREFIX")
            }
            let s3: S3Configuration
            do {
                s3 = try S3Configuration.fromEnvironment(location, environment: environment)
            } catch {
                throw ServerError("\(location): \(error)")
            }
            let client = S3Client(configuration: s3, logger: configuration.logger)
            stores.append((ObjectCatalog(reader: client, maxTileBytes: TileStore.defaultMaxTileBytes, logger: configuration.logger), client))
        }
        return stores
    }

    /// Why the first listing of an object-store root failed (wrong credentials, no such bucket), as one line; nil when
    /// every root was listed.
    func objectStoreProblem() -> String? {
        for catalog in context.catalog.objectRoots {
            if let error = catalog.lastListingError { return "cannot list \(catalog.name): \(error)" }
        }
        return nil
    }

    /// Closes the object stores' connections, then calls `then`.
    func shutdownObjectStores(then: @escaping @Sendable () -> Void) {
        guard !objectClients.isEmpty else { return then() }
        let loop = group.next()
        EventLoopFuture.andAllComplete(objectClients.map { $0.shutdown() }, on: loop).whenComplete { _ in then() }
    }
}
