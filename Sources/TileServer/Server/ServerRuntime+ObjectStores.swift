import FoundationEssentials
import NIOCore
import ObjectStore
import TileSources

extension ServerRuntime {
    /// Where an object-store root is: an S3 bucket and prefix, or one object of a plain HTTP(S) server.
    enum StoreRoot {
        case s3(S3Configuration)
        /// A server that cannot list: the folder, and the one object served from it.
        case http(HTTPLocation, object: String)
    }

    /// Each object-store root `configuration` names: an S3 root's credentials, region, endpoint and addressing from
    /// the AWS variables and shared files (``ObjectStore/S3Configuration/fromEnvironment(_:environment:addressingStyle:)``);
    /// an `http(s)://` root must name one `.szi` or TIFF (a plain server cannot be listed).
    ///
    /// - Throws: ``ServerError``, one line naming the root: not a root, a plain HTTP folder, or a bad AWS setting.
    ///   Credentials are never part of it.
    static func objectStoreRoots(_ configuration: ServerConfiguration) throws(ServerError) -> [StoreRoot] {
        let environment = configuration.environment ?? ProcessInfo.processInfo.environment
        var roots: [StoreRoot] = []
        for text in configuration.objectRoots {
            if let object = Self.httpObject(text) {
                do {
                    roots.append(.http(try HTTPLocation(parsing: String(text.dropLast(object.utf8.count))), object: object))
                } catch {
                    throw ServerError("\(error)")
                }
                continue
            }
            let parsed: ObjectStoreRoot?
            do {
                parsed = try ObjectStoreRoot.parse(text)
            } catch {
                throw ServerError("\(error)")
            }
            guard case .s3(let location) = parsed else {
                let reason = parsed == nil ? "is not an object-store root" : "is a plain HTTP folder, which cannot be listed"
                throw ServerError("\(text) \(reason): give s3://BUCKET/PREFIX or http(s)://HOST/PATH/NAME.szi (or NAME.tif)")
            }
            do {
                roots.append(.s3(try S3Configuration.fromEnvironment(location, environment: environment)))
            } catch {
                throw ServerError("\(location): \(error)")
            }
        }
        return roots
    }

    /// The object an `http(s)://…/NAME.szi` (or `NAME.tif`, any of ``TileSources/PyramidFileNames/tiffExtensions``)
    /// root names (`NAME.szi`), or nil for any other text.
    static func httpObject(_ text: String) -> String? {
        let lower = text.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), let slash = text.lastIndex(of: "/") else { return nil }
        let object = String(text[text.index(after: slash)...])
        guard let (name, _) = ObjectCatalog.pyramid(object), !name.isEmpty, !object.lowercased().hasSuffix(".dzi") else { return nil }
        return object
    }

    /// A catalog and a client for each of `roots`. Their connections live on `group`, the server's event loops: a tile
    /// fetched for a request is asked for, and answered, on the request's own loop, with no hop between threads.
    static func objectStores(
        _ roots: [StoreRoot], configuration: ServerConfiguration, group: any EventLoopGroup
    ) -> [(catalog: ObjectCatalog, shutdown: @Sendable () -> EventLoopFuture<Void>)] {
        roots.map { root in
            let (options, logger) = (configuration.objectStoreOptions, configuration.logger)
            switch root {
            case .s3(let s3):
                let client = S3Client(configuration: s3, options: options, eventLoopGroup: group, logger: logger)
                return (ObjectCatalog(reader: client, maxTileBytes: TileStore.defaultMaxTileBytes, logger: logger), client.shutdown)
            case .http(let location, let object):
                var options = options
                let environment = configuration.environment ?? ProcessInfo.processInfo.environment
                if let caBundle = environment["AWS_CA_BUNDLE"], !caBundle.isEmpty { options.caBundle = caBundle }
                let source = HTTPRangeSource(location: location, options: options, eventLoopGroup: group, logger: logger)
                let catalog = ObjectCatalog(reader: source, maxTileBytes: TileStore.defaultMaxTileBytes, logger: logger, object: object)
                return (catalog, source.shutdown)
            }
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
        EventLoopFuture.andAllComplete(objectClients.map { $0() }, on: loop).whenComplete { _ in then() }
    }
}
