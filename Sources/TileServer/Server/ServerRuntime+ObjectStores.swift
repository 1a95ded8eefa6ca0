import FoundationEssentials
import NIOCore
import ObjectStore
import TileSources

extension ServerRuntime {
    /// The S3 settings of each object-store root `configuration` names: credentials, region, endpoint and addressing
    /// from the AWS variables and shared files (``ObjectStore/S3Configuration/fromEnvironment(_:environment:addressingStyle:)``).
    ///
    /// - Throws: ``ServerError``, one line naming the root: not a root, a plain `https://` folder (it cannot be
    ///   listed), or a bad AWS setting. Credentials are never part of it.
    static func objectStoreSettings(_ configuration: ServerConfiguration) throws(ServerError) -> [S3Configuration] {
        let environment = configuration.environment ?? ProcessInfo.processInfo.environment
        var settings: [S3Configuration] = []
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
            do {
                settings.append(try S3Configuration.fromEnvironment(location, environment: environment))
            } catch {
                throw ServerError("\(location): \(error)")
            }
        }
        return settings
    }

    /// A catalog and a client for each of `settings`. Their connections live on `group`, the server's event loops: a
    /// tile fetched for a request is asked for, and answered, on the request's own loop, with no hop between threads.
    static func objectStores(
        _ settings: [S3Configuration], configuration: ServerConfiguration, group: any EventLoopGroup
    ) -> [(catalog: ObjectCatalog, client: S3Client)] {
        settings.map { s3 in
            let client = S3Client(configuration: s3, options: configuration.objectStoreOptions, eventLoopGroup: group, logger: configuration.logger)
            return (ObjectCatalog(reader: client, maxTileBytes: TileStore.defaultMaxTileBytes, logger: configuration.logger), client)
        }
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
