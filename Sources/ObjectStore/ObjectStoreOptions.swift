import NIOCore

/// How a client talks to one store: its connection pool, the bound on requests in flight, timeouts and retries.
public struct ObjectStoreOptions: Sendable {
    /// Requests in flight to the store at most; more wait in line (first come, first served). Also the pool's
    /// kept-alive connections.
    public var maxConcurrentRequests: Int
    /// The longest wait for a TCP (and TLS) connection.
    public var connectTimeout: TimeAmount
    /// The longest silence while waiting for the answer or the next bytes of its body.
    public var readTimeout: TimeAmount
    /// The longest one attempt of a request may take, from sending to the last byte.
    public var requestTimeout: TimeAmount
    /// How long an unused kept-alive connection stays open.
    public var idleConnectionTimeout: TimeAmount
    /// Retries of idempotent requests.
    public var retry: RetryPolicy
    /// A PEM file of the certificate authorities that `https://` stores' certificates are checked against, instead
    /// of the system's (`AWS_CA_BUNDLE`, or a profile's `ca_bundle`: a store with a private authority); nil: the
    /// system's.
    public var caBundle: String?
    /// When a store that stopped answering is left alone (``StoreBreaker``): after three unanswered requests in a row,
    /// for 0.5 s doubling to 5 s.
    package var breaker = StoreBreaker()

    /// 16 requests in flight, 5 s to connect, 30 s of silence, 60 s a request, connections idle for 60 s, three attempts.
    public init(
        maxConcurrentRequests: Int = 16, connectTimeout: TimeAmount = .seconds(5), readTimeout: TimeAmount = .seconds(30),
        requestTimeout: TimeAmount = .seconds(60), idleConnectionTimeout: TimeAmount = .seconds(60), retry: RetryPolicy = RetryPolicy()
    ) {
        precondition(maxConcurrentRequests >= 1, "at least one request must be allowed in flight")
        self.maxConcurrentRequests = maxConcurrentRequests
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.requestTimeout = requestTimeout
        self.idleConnectionTimeout = idleConnectionTimeout
        self.retry = retry
    }
}
