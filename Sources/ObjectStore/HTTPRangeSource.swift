import AsyncHTTPClient
import Logging
import NIOCore
import NIOHTTP1

/// Objects read from a folder of a plain HTTP(S) server that answers ranged GETs (a public bucket's website, nginx, any
/// CDN): HEAD for the size and ETag, `GET` with `Range` and `If-Match` for the bytes.
///
/// An object's version is its ETag and size (``ObjectInfo/version``); a server that sends no ETag cannot tell a
/// replaced object apart, and a read then has no `If-Match` to check. A plain server cannot list: ``list(prefix:on:)``
/// fails with ``ObjectStoreError/Kind-swift.struct/unsupported``.
public final class HTTPRangeSource: ObjectReader {
    /// The folder: scheme, host, port and path.
    public let location: HTTPLocation
    let transport: HTTPTransport

    /// Creates a source; no request is sent until one is asked for.
    public init(
        location: HTTPLocation, options: ObjectStoreOptions = ObjectStoreOptions(),
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup, logger: Logger = Logger(label: "tiler.object-store")
    ) {
        self.location = location
        self.transport = HTTPTransport(store: location.description, options: options, eventLoopGroup: eventLoopGroup, logger: logger)
    }

    /// `https://host/folder/`.
    public var name: String { location.description }

    /// The group the source's connections run on.
    public var eventLoopGroup: any EventLoopGroup { transport.eventLoopGroup }

    /// Closes the pooled connections; the source cannot be used after.
    public func shutdown() -> EventLoopFuture<Void> {
        transport.shutdown()
    }

    /// ``shutdown()``, awaited.
    public func shutdown() async throws {
        try await transport.client.shutdown()
    }

    /// The size, ETag and modification time of `key` (HEAD).
    public func info(_ key: String, on eventLoop: any EventLoop) -> EventLoopFuture<ObjectInfo> {
        let call = HTTPTransport.Call(operation: "HEAD", key: key)
        return send(call, .HEAD, key: key, headers: [], on: eventLoop).flatMapResult { self.transport.objectInfo($0, key: key, call) }
    }

    /// The bytes `range` of `key`, of version `ifMatch` if given.
    public func read(_ key: String, range: Range<Int>, ifMatch: String?, on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer> {
        let call = HTTPTransport.Call(operation: "GET", key: key)
        return send(call, .GET, key: key, headers: HTTPTransport.rangeHeaders(range, ifMatch: ifMatch), on: eventLoop)
            .flatMapResult { self.transport.rangeBody($0, range: range, call) }
    }

    /// Fails: a plain HTTP server has no listing.
    public func list(prefix: String, on eventLoop: any EventLoop) -> EventLoopFuture<[ObjectInfo]> {
        let call = HTTPTransport.Call(operation: "LIST", key: prefix.isEmpty ? nil : prefix)
        return eventLoop.makeFailedFuture(transport.error(.unsupported, call, "a plain HTTP server cannot list its objects"))
    }

    private func send(
        _ call: HTTPTransport.Call, _ method: HTTPMethod, key: String, headers: [(String, String)], on eventLoop: any EventLoop
    ) -> EventLoopFuture<HTTPClient.Response> {
        let url = location.origin + location.path + SigV4Signer.encodePath(key)
        return transport.perform(call, on: eventLoop) {
            HTTPTransport.Request(method: method, url: url, headers: HTTPHeaders(headers))
        }
    }
}
