import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization

/// The HTTP machinery both readers share: one AsyncHTTPClient (a pool of kept-alive connections) per store, the bound
/// on requests in flight, the deadline of each attempt, retries of idempotent requests, and the turning of every
/// answer that is not a success — and of every network failure — into one ``ObjectStoreError``.
///
/// Nothing here waits: each step is a future on the caller's event loop.
package final class HTTPTransport: Sendable {
    /// One request as sent: built again for every attempt (a signature carries its time).
    package struct Request: Sendable {
        package var method: HTTPMethod
        package var url: String
        package var headers: HTTPHeaders
        package var body: ByteBuffer?

        package init(method: HTTPMethod, url: String, headers: HTTPHeaders, body: ByteBuffer? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    /// What a request is, for errors and the retry decision.
    package struct Call: Sendable {
        /// `GET`, `HEAD`, `LIST`, `CREATE-UPLOAD`, … as errors name it.
        package var operation: String
        /// The key relative to the root, if the request is about one object.
        package var key: String?
        /// Whether sending it twice does no harm (everything but creating and completing multipart uploads).
        package var idempotent: Bool

        package init(operation: String, key: String?, idempotent: Bool = true) {
            self.operation = operation
            self.key = key
            self.idempotent = idempotent
        }
    }

    /// The store's name in errors and logs.
    package let store: String
    /// The client and its pool, for everything but reads.
    package let client: HTTPClient
    /// The connections that carry `GET`s and `HEAD`s, a tile's reads (``StoreConnectionPool``).
    let readPool: StoreConnectionPool
    /// The bound on requests in flight.
    package let limiter: RequestLimiter
    /// Timeouts and retries.
    package let options: ObjectStoreOptions
    private let logger: Logger
    /// Whether the store is being asked at all (``StoreBreaker``).
    private let breaker: Mutex<StoreBreaker>

    /// Creates the transport of one store on `eventLoopGroup` (the server's, or NIO's shared one).
    package init(store: String, options: ObjectStoreOptions, eventLoopGroup: any EventLoopGroup, logger: Logger) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: options.connectTimeout, read: options.readTimeout),
            connectionPool: .init(
                idleTimeout: options.idleConnectionTimeout, concurrentHTTP1ConnectionsPerHostSoftLimit: options.maxConcurrentRequests),
            decompression: .disabled
        )
        configuration.timeout.write = options.readTimeout
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caBundle = options.caBundle { tls.trustRoots = .file(caBundle) }
        configuration.tlsConfiguration = tls
        self.store = store
        self.client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration, backgroundActivityLogger: logger)
        self.readPool = StoreConnectionPool(
            connectTimeout: options.connectTimeout, readTimeout: options.readTimeout, idleTimeout: options.idleConnectionTimeout,
            maxIdlePerLoop: options.maxConcurrentRequests, tls: Result { try NIOSSLContext(configuration: tls) })
        self.limiter = RequestLimiter(limit: options.maxConcurrentRequests)
        self.options = options
        self.logger = logger
        self.breaker = Mutex(options.breaker)
    }

    /// The group the client runs on.
    package var eventLoopGroup: any EventLoopGroup { client.eventLoopGroup }

    /// Sends the request `make` builds, retrying when the call is idempotent and the failure is retryable, and gives the
    /// response of a 2xx answer whose body is as long as its `Content-Length` said.
    package func perform(
        _ call: Call, on eventLoop: any EventLoop, make: @escaping @Sendable () throws -> Request
    ) -> EventLoopFuture<HTTPClient.Response> {
        attempt(1, call, on: eventLoop, make: make)
    }

    private func attempt(
        _ number: Int, _ call: Call, on eventLoop: any EventLoop, make: @escaping @Sendable () throws -> Request
    ) -> EventLoopFuture<HTTPClient.Response> {
        if case .refuse(let remaining) = breaker.withLock({ $0.admit(now: .now()) }) {
            let seconds = Int((remaining.nanoseconds + 999_999_999) / 1_000_000_000)
            let detail = "not asked: the store answered none of its last requests; asking again in \(remaining.nanoseconds / 1_000_000) ms"
            return eventLoop.makeFailedFuture(error(.unavailable, call, detail, retryAfter: max(1, seconds)))
        }
        let sent = limiter.acquire(on: eventLoop).flatMap { () -> EventLoopFuture<HTTPClient.Response> in
            let response: EventLoopFuture<HTTPClient.Response>
            do {
                let request = try make()
                let deadline = NIODeadline.now() + self.options.requestTimeout
                if request.body == nil, request.method == .GET || request.method == .HEAD, self.readPool.handles(request.url) {
                    response = self.readPool.execute(
                        method: request.method, url: request.url, headers: request.headers, on: eventLoop, deadline: deadline)
                } else {
                    let sendable = try HTTPClient.Request(
                        url: request.url, method: request.method, headers: request.headers, body: request.body.map { .byteBuffer($0) })
                    response = self.client.execute(request: sendable, eventLoop: .delegate(on: eventLoop), deadline: deadline, logger: self.logger)
                }
            } catch {
                response = eventLoop.makeFailedFuture(error)
            }
            return response.always { _ in self.limiter.release() }
        }
        sent.whenComplete { result in
            var answered = true
            if case .failure(let failure) = result { answered = !Self.gotNoAnswer(failure) }
            self.breaker.withLock { $0.record(answered: answered, now: .now()) }
        }
        return sent.flatMapErrorThrowing { throw self.classify($0, call) }.flatMapResult { self.check($0, call) }.flatMapError { error in
            guard let error = error as? ObjectStoreError, error.isRetryable, call.idempotent, number < self.options.retry.maxAttempts else {
                return eventLoop.makeFailedFuture(error)
            }
            let delay = self.options.retry.delay(afterAttempt: number, retryAfterSeconds: error.storeRetryAfterSeconds)
            self.logger.debug("retrying in \(delay.nanoseconds / 1_000_000) ms (attempt \(number + 1)): \(error)")
            return self.options.retry.sleep(delay, eventLoop).flatMap { self.attempt(number + 1, call, on: eventLoop, make: make) }
        }
    }

    /// Whether `failure` means the store gave no answer at all, for the breaker: no connection (refused, unreachable,
    /// timed out) or nothing within the timeouts. A connection reset or closed once made is the store's answer, if a
    /// broken one, and is retried as usual.
    static func gotNoAnswer(_ failure: any Error) -> Bool {
        if let failure = failure as? HTTPClientError {
            return [.connectTimeout, .readTimeout, .deadlineExceeded, .tlsHandshakeTimeout].contains(failure)
        }
        if failure is NIOConnectionError { return true }
        if case ChannelError.connectTimeout = failure { return true }
        if let failure = failure as? IOError { return [ECONNREFUSED, EHOSTUNREACH, ENETUNREACH].contains(failure.errnoCode) }
        return false
    }

    /// Closes the pool's connections; the transport cannot be used after.
    package func shutdown() -> EventLoopFuture<Void> {
        readPool.shutdown()
        return client.shutdown()
    }
}
