extension SingleFlight {
    /// What a caller of ``value(for:isolation:loader:)`` learns on joining: load it, or here is the result.
    private enum Turn: Sendable {
        case load
        case loaded(Value)
    }

    /// Returns the value for `key`, loading it with `loader` unless a load of `key` is already under way, in
    /// which case it waits for that load's result (or error).
    ///
    /// The loader runs in the calling task, in the caller's isolation. Waiting is not cancellable: a waiter
    /// returns when the loader finishes. If the loader throws, every caller of the flight gets its error.
    ///
    /// - Parameters:
    ///   - key: The key to load.
    ///   - isolation: The caller's actor isolation (defaults to the caller's own).
    ///   - loader: Loads the value; called only if this caller starts the flight.
    /// - Returns: The loaded value.
    public func value(
        for key: Key,
        isolation: isolated (any Actor)? = #isolation,
        loader: () async throws -> Value
    ) async throws -> Value {
        let turn: Turn = try await withCheckedThrowingContinuation(isolation: isolation) { continuation in
            let mustLoad = _join(key, waiter: { continuation.resume(with: $0.map(Turn.loaded)) }, registerLoader: false)
            if mustLoad {
                continuation.resume(returning: .load)
            }
        }
        switch turn {
        case .loaded(let value): return value
        case .load: break
        }
        let result: Result<Value, any Error>
        do {
            result = .success(try await loader())
        } catch {
            result = .failure(error)
        }
        complete(key, with: result)
        return try result.get()
    }
}
