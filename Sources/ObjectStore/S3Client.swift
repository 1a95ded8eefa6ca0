import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// A client of one bucket and prefix of an S3-compatible store (AWS, Ceph's RADOS Gateway, MinIO, …): HEAD and ranged
/// GET with `If-Match`, ListObjectsV2, PUT, DELETE and multipart uploads, signed with ``SigV4Signer``.
///
/// Keys are relative to the configuration's prefix. Requests go through one pool of kept-alive connections with at most
/// ``ObjectStoreOptions/maxConcurrentRequests`` in flight; idempotent ones are retried (``RetryPolicy``). Every method
/// returns a future on the event loop given; `async` forms are in `S3Client+Async.swift` and `ObjectReader+Async.swift`.
/// Call ``shutdown()`` when done.
public final class S3Client: ObjectReader {
    /// The bucket, endpoint, region, addressing and credentials.
    public let configuration: S3Configuration
    let transport: HTTPTransport
    private let signer: SigV4Signer?
    private let now: @Sendable () -> Date
    /// `SCHEME://HOST[:PORT]` and the `Host` header's value, made once: every request starts with them.
    private let origin: String
    private let requestHost: String

    /// Creates a client; no request is sent until one is asked for.
    ///
    /// - Parameters:
    ///   - eventLoopGroup: where connections live (the server's group; NIO's shared one by default).
    ///   - now: the clock requests are signed with.
    public init(
        configuration: S3Configuration, options: ObjectStoreOptions = ObjectStoreOptions(),
        eventLoopGroup: any EventLoopGroup = HTTPClient.defaultEventLoopGroup, logger: Logger = Logger(label: "tiler.object-store"),
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        var options = options
        if let caBundle = configuration.caBundle { options.caBundle = caBundle }
        self.transport = HTTPTransport(store: configuration.location.description, options: options, eventLoopGroup: eventLoopGroup, logger: logger)
        self.signer = configuration.credentials.map { SigV4Signer(credentials: $0, region: configuration.region) }
        self.now = now
        self.requestHost = configuration.requestHost
        self.origin = "\(configuration.endpoint.scheme)://\(configuration.requestHost)"
    }

    /// `s3://bucket/prefix/`.
    public var name: String { configuration.location.description }

    /// The group the client's connections run on.
    public var eventLoopGroup: any EventLoopGroup { transport.eventLoopGroup }

    /// Closes the pooled connections; the client cannot be used after.
    public func shutdown() -> EventLoopFuture<Void> {
        transport.shutdown()
    }

    /// The size, ETag and modification time of `key`.
    public func info(_ key: String, on eventLoop: any EventLoop) -> EventLoopFuture<ObjectInfo> {
        let call = HTTPTransport.Call(operation: "HEAD", key: key)
        return send(call, .HEAD, key: key, on: eventLoop).flatMapResult { self.transport.objectInfo($0, key: key, call) }
    }

    /// The bytes `range` of `key`, of version `ifMatch` if given (a replaced object fails with `.changed`).
    public func read(_ key: String, range: Range<Int>, ifMatch: String?, on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer> {
        let call = HTTPTransport.Call(operation: "GET", key: key)
        let headers = HTTPTransport.rangeHeaders(range, ifMatch: ifMatch)
        return send(call, .GET, key: key, headers: headers, on: eventLoop).flatMapResult { self.transport.rangeBody($0, range: range, call) }
    }

    /// The whole of `key`, of version `ifMatch` if given.
    public func get(_ key: String, ifMatch: String? = nil, on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer> {
        let headers = ifMatch.map { [("if-match", $0)] } ?? []
        return send(HTTPTransport.Call(operation: "GET", key: key), .GET, key: key, headers: headers, on: eventLoop).map { $0.body ?? ByteBuffer() }
    }

    /// Stores `body` as `key` in one request (up to 5 GiB; use a multipart upload for more); gives the new ETag.
    public func put(_ key: String, body: ByteBuffer, contentType: String? = nil, on eventLoop: any EventLoop) -> EventLoopFuture<String> {
        let headers = contentType.map { [("content-type", $0)] } ?? []
        return send(HTTPTransport.Call(operation: "PUT", key: key), .PUT, key: key, headers: headers, body: body, on: eventLoop)
            .map { $0.headers.first(name: "etag") ?? "" }
    }

    /// Deletes `key` (S3 answers success for a key that does not exist).
    public func delete(_ key: String, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        send(HTTPTransport.Call(operation: "DELETE", key: key), .DELETE, key: key, on: eventLoop).map { _ in }
    }

    /// Creates the bucket (for tests and set-up; a bucket that exists and is the caller's is no error).
    public func createBucket(on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        send(HTTPTransport.Call(operation: "CREATE-BUCKET", key: nil), .PUT, key: nil, on: eventLoop).map { _ in }
            .flatMapError { error in
                guard let error = error as? ObjectStoreError, error.status == 409, error.detail == "BucketAlreadyOwnedByYou" else {
                    return eventLoop.makeFailedFuture(error)
                }
                return eventLoop.makeSucceededVoidFuture()
            }
    }

    /// Sends one signed request about `key` (relative; nil for the bucket itself) and gives its 2xx response.
    func send(
        _ call: HTTPTransport.Call, _ method: HTTPMethod, key: String?, query: [(String, String)] = [], headers: [(String, String)] = [],
        body: ByteBuffer? = nil, on eventLoop: any EventLoop
    ) -> EventLoopFuture<HTTPClient.Response> {
        let payloadHash = body.map { SigV4Signer.payloadHash($0.readableBytesView) } ?? SigV4Signer.emptyPayloadHash
        let path = requestPath(key: key)
        let url =
            origin + path + (query.isEmpty ? "" : "?" + SigV4Signer.canonicalQuery(query))
        return transport.perform(call, on: eventLoop) { [requestHost, signer, now] in
            var all = [("host", requestHost)] + headers
            if let signer {
                all = signer.sign(method: method.rawValue, path: path, query: query, headers: all, payloadHash: payloadHash, date: now())
            }
            return HTTPTransport.Request(method: method, url: url, headers: HTTPHeaders(all), body: body)
        }
    }

    /// The percent-encoded request path of `key` under the prefix, or of the bucket when `key` is nil.
    private func requestPath(key: String?) -> String {
        guard let key else { return configuration.usesPathStyle ? "/\(configuration.location.bucket)" : "/" }
        return configuration.requestPath(fullKey: configuration.location.prefix + key)
    }
}
