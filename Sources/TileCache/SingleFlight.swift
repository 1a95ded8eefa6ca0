import Synchronization

/// Coalesces concurrent loads of the same key: the first caller for a key loads it, later callers for that key
/// wait for its result (so concurrent misses for one tile read the disk once).
///
/// Callback-based, for code that does not use async/await (a SwiftNIO event loop): every caller passes a
/// callback to ``join(_:onResult:)``; the one told to load does so and hands the result to
/// ``complete(_:with:)``, which calls every callback of that flight — the loader's too — in joining order,
/// outside the lock, on the completing thread (so a callback may join again, or hop to its own event loop).
/// ``value(for:isolation:loader:)`` is the async/await form.
///
/// A flight lasts from its first ``join(_:onResult:)`` to its ``complete(_:with:)``; a caller joining after that
/// starts a new flight. So the loader should store what it loaded (for example in a ``ConcurrentLRUCache``)
/// *before* completing, and a caller told to load may look in the cache once more first.
public final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Receives the result of a flight.
    public typealias Callback = @Sendable (Result<Value, any Error>) -> Void

    /// The callbacks waiting on each key in flight, in joining order. (Inlinable, like the methods, so that a user's
    /// module specialises them for its key: unspecialised, a miss paid about 7,000 instructions in generic
    /// metadata lookups and dictionary witnesses to lead and complete its flight.)
    @usableFromInline let flights = Mutex<[Key: [Callback]]>([:])

    /// Creates a coalescer with nothing in flight.
    public init() {}

    /// Joins the flight for `key`, starting it if there is none.
    ///
    /// `onResult` is called exactly once, with the flight's result, when ``complete(_:with:)`` is called for
    /// `key` — whoever joined first.
    ///
    /// - Returns: `true` if this caller started the flight and must now load `key` and then call
    ///   ``complete(_:with:)`` exactly once, on every path (errors included: until then the other callers
    ///   wait); `false` if a load is already under way.
    /// - Complexity: O(1) (hashing amortised).
    @inlinable
    public func join(_ key: Key, onResult: @escaping Callback) -> Bool {
        _join(key, waiter: onResult, registerLoader: true)
    }

    /// Starts the flight for `key` without a callback for this caller, or joins the one under way with `onResult`.
    ///
    /// For a loader that may finish at once and use its result first-hand (an event loop reading a file that is
    /// in the page cache): when it leads, `onResult` is not registered — the caller must call
    /// ``complete(_:with:)`` itself, or, to wait after all (the load must go elsewhere), ``join(_:onResult:)``
    /// while the flight is still its own, before handing the load on.
    ///
    /// - Returns: `true` if this caller started the flight (and `onResult` will not be called unless it joins);
    ///   `false` if a load was already under way, in which case `onResult` waits for it like a ``join(_:onResult:)``.
    /// - Complexity: O(1) (hashing amortised).
    @inlinable
    public func lead(_ key: Key, otherwise onResult: @escaping Callback) -> Bool {
        _join(key, waiter: onResult, registerLoader: false)
    }

    /// Ends the flight for `key`: calls every callback that joined it with `result`, in joining order, on this
    /// thread and outside the lock.
    ///
    /// - Returns: How many callbacks were called.
    /// - Precondition: `key` is in flight (the loader completes once).
    @discardableResult
    @inlinable
    public func complete(_ key: Key, with result: Result<Value, any Error>) -> Int {
        guard let waiters = flights.withLock({ $0.removeValue(forKey: key) }) else {
            preconditionFailure("complete(_:with:) called for a key that is not in flight")
        }
        for waiter in waiters {
            waiter(result)
        }
        return waiters.count
    }

    /// How many callbacks wait on `key`, or `nil` if it is not in flight. O(1).
    @inlinable
    public func waiterCount(for key: Key) -> Int? {
        flights.withLock { $0[key]?.count }
    }

    /// How many keys are in flight. O(1).
    @inlinable
    public var inFlightCount: Int {
        flights.withLock { $0.count }
    }

    /// Joins or starts the flight for `key`; registers `waiter` unless this caller starts the flight and
    /// `registerLoader` is false. Returns whether this caller starts the flight.
    @inlinable
    func _join(_ key: Key, waiter: @escaping Callback, registerLoader: Bool) -> Bool {
        flights.withLock { flights in
            if flights[key] != nil {
                flights[key]!.append(waiter)
                return false
            }
            flights[key] = registerLoader ? [waiter] : []
            return true
        }
    }
}
