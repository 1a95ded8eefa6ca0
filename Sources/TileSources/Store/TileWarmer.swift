import NIOCore
import NIOPosix
import Synchronization

/// Loads the tiles visible-rect queries asked for into the cache in the background, so that the client's tile
/// requests that follow hit memory — without taking the machine from live requests.
///
/// One thread at normal priority whose CPU time is kept within ``cpuShare`` of one core (``WarmingPace``): a warm read
/// is mostly waiting for the disk, and must be done before the browser asks — at the lowest priority (nice 19) beside
/// a browser on two cores, the reads a report had asked for were still waiting for a core when the browser asked
/// (measured with bench/viewport-real.sh). Pending tiles are kept newest viewport first and centre first, at most
/// ``limit`` of them: the oldest viewports' tiles are dropped, since their clients have moved on, and a viewer's new
/// report supersedes what its earlier ones still had pending (the element sends a `viewer` id with each report).
package final class TileWarmer: Sendable {
    /// Tiles that may wait to be warmed; beyond it the oldest are dropped.
    package let limit: Int
    /// The most CPU time the thread may use per wall time.
    package static let cpuShare = 0.25
    private let cpuTime = Atomic<Int>(0)
    private let pending: Mutex<WarmingQueue>
    private let thread: NIOThreadPool
    private let warm: @Sendable (TileKey, CatalogImage, NIODeadline) -> Void

    /// Starts the warming thread; `warm` loads one tile (blocking) on it, given when its query queued it.
    package init(limit: Int, warm: @escaping @Sendable (TileKey, CatalogImage, NIODeadline) -> Void) {
        self.limit = limit
        self.warm = warm
        pending = Mutex(WarmingQueue())
        thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
    }

    /// Queues `keys` (tiles of `image`, the most wanted first) ahead of everything pending, dropping what earlier
    /// reports of the same `viewer` (an id of at most 64 bytes; nil: none) still had pending.
    /// Cheap for an event loop: one lock, no file access; the thread skips tiles already cached.
    package func enqueue(_ keys: [TileKey], of image: CatalogImage, viewer: Substring? = nil) {
        guard limit > 0, !keys.isEmpty else { return }
        let now = NIODeadline.now()
        let viewer = viewer.flatMap { $0.utf8.count <= 64 && !$0.isEmpty ? String($0) : nil }
        let mustStart = pending.withLock { $0.push(keys.prefix(limit), of: image, viewer: viewer, at: now, limit: limit) }
        if mustStart {
            thread.submit { [self] state in drain(state) }
        }
    }

    /// The CPU time the warming thread has used, in seconds.
    package var cpuSeconds: Double { Double(cpuTime.load(ordering: .relaxed)) / 1e9 }

    private func drain(_ state: NIOThreadPool.WorkItemState) {
        guard case .active = state else {
            pending.withLock { $0.removeAll() }
            return
        }
        var pace = WarmingPace(share: Self.cpuShare)
        while let (key, image, queuedAt) = pending.withLock({ $0.pop() }) {
            warm(key, image, queuedAt)
            cpuTime.add(Int(pace.pace()), ordering: .relaxed)
        }
    }

    /// Stops the thread once the tile being warmed is done; what is pending is dropped.
    package func shutdownGracefully(_ callback: @escaping @Sendable ((any Error)?) -> Void) {
        pending.withLock { $0.removeAll() }
        thread.shutdownGracefully(callback)
    }

    /// Stops the thread (after a failed start), blocking.
    @available(*, noasync)
    package func syncShutdown() {
        pending.withLock { $0.removeAll() }
        try? thread.syncShutdownGracefully()
    }

    /// Stops the thread (after a failed start).
    package func shutdown() async {
        pending.withLock { $0.removeAll() }
        try? await thread.shutdownGracefully()
    }
}

/// The warmer's pending tiles: batches (one per viewport), newest last; each batch's keys reversed, so the most
/// wanted tile of the newest viewport is popped first.
private struct WarmingQueue {
    private var batches: [(image: CatalogImage, viewer: String?, queuedAt: NIODeadline, keys: [TileKey])] = []
    private var draining = false
    private var count = 0

    /// Adds a batch, dropping the batches of `viewer` it supersedes and the oldest keys beyond `limit`. Returns whether
    /// the thread must be started.
    package mutating func push(_ keys: ArraySlice<TileKey>, of image: CatalogImage, viewer: String?, at queuedAt: NIODeadline, limit: Int) -> Bool {
        if let viewer {
            batches.removeAll { batch in
                guard batch.viewer == viewer else { return false }
                count -= batch.keys.count
                return true
            }
        }
        batches.append((image, viewer, queuedAt, keys.reversed()))
        count += keys.count
        while count > limit {
            let excess = count - limit
            if batches[0].keys.count <= excess {
                count -= batches.removeFirst().keys.count
            } else {
                // The oldest batch's least wanted tiles sit at its front.
                batches[0].keys.removeFirst(excess)
                count -= excess
            }
        }
        defer { draining = true }
        return !draining
    }

    /// The next tile to warm, or `nil` (and the thread stops) when none is left.
    package mutating func pop() -> (TileKey, CatalogImage, NIODeadline)? {
        while let last = batches.indices.last {
            if let key = batches[last].keys.popLast() {
                count -= 1
                return (key, batches[last].image, batches[last].queuedAt)
            }
            batches.removeLast()
        }
        draining = false
        return nil
    }

    package mutating func removeAll() {
        batches.removeAll()
        count = 0
    }
}
