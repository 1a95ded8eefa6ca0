import HTTPCore

extension TileStore {
    /// Why a tile made from stored pixels was not made now: the render budget is in use (503 with `Retry-After`).
    package struct RenderBudgetFull: Error, CustomStringConvertible {
        package var description: String { "the server's memory for rendering images is in use" }
    }

    /// Tiles not made because every request for them was cancelled (their clients went) before a thread took them.
    package var abandonedMakeCount: Int { abandonedCount.load(ordering: .relaxed) }

    /// Ends the flight for `key` with `result`, forgetting who was waiting for it.
    package func complete(_ key: TileKey, with result: Result<LoadedFile, any Error>) {
        interest.withLock { _ = $0.removeValue(forKey: key) }
        flights.complete(key, with: result)
    }

    /// Loads tile `key` of `image` on a file thread for a request (`job`) whose earlier flight was abandoned by everyone
    /// else (``abandoned(_:)``), joining a flight under way; `onResult` is called once, on another thread.
    package func loadAgain(
        _ key: TileKey, of image: CatalogImage, job: RenderJob, onResult: @escaping @Sendable (Result<LoadedFile, any Error>) -> Void
    ) {
        interest.withLock { $0[key, default: []].append(job) }
        if flights.join(key, onResult: onResult) { startLoad(key, of: image) }
    }

    /// Whether every request waiting for tile `key` (made from a stored pyramid) has been cancelled: its clients went,
    /// so the tile is not worth a thread's time. A request that joins afterwards gets `CancellationError` and asks
    /// again (``Router``).
    package func abandoned(_ key: TileKey) -> Bool {
        let gone = interest.withLock { waiting in
            guard let jobs = waiting[key], !jobs.isEmpty else { return false }
            return jobs.allSatisfy { $0?.isCancelled == true }
        }
        if gone { abandonedCount.add(1, ordering: .relaxed) }
        return gone
    }

    /// Tile `key` of `image` from its stored pyramid: passed through, or made within the render budget (its working
    /// memory reserved while it is made, unless `reserving` is false: a tile made as part of another's making, whose
    /// reservation covers it).
    ///
    /// - Throws: ``RenderBudgetFull`` when the budget has no room; the pyramid's read, decode and encode errors.
    package func makeStored(_ key: TileKey, of image: CatalogImage, _ stored: StoredTiles, reserving: Bool) throws -> LoadedFile {
        guard reserving, let bytes = stored.workingBytes(key.address, of: image) else {
            return try stored.tile(key.address, of: image, store: self)
        }
        guard let reservation = renderBudget.reserve(bytes) else { throw RenderBudgetFull() }
        defer { reservation.release() }
        return try stored.tile(key.address, of: image, store: self)
    }
}
