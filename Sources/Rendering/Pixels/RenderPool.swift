import NIOPosix
import Synchronization
import TileSources

/// The threads that render IIIF images, apart from the event loops and the file threads, with a bounded queue:
/// at most `threads` renders run and `queueLimit` more wait; beyond that ``submit(_:completion:)`` refuses (the
/// handler answers 503), so a burst of huge requests cannot pile up work or starve tile requests of threads. A render
/// whose client has gone is cancelled through its ``RenderJob``: dropped from the queue at once, or stopped at its
/// next row.
package final class RenderPool: Sendable {
    /// Render threads.
    package let threads: Int
    /// Renders that may wait for a thread.
    package let queueLimit: Int
    private let threadPool: NIOThreadPool
    private let admitted = Atomic<Int>(0)
    private let startedCount = Atomic<Int>(0)
    private let cancelledCount = Atomic<Int>(0)
    private let workspaces = Mutex<[RenderWorkspace]>([])
    private let jpegQuality: Int

    /// Creates and starts a pool of `threads` threads; JPEG output has quality `jpegQuality`.
    package init(threads: Int, queueLimit: Int, jpegQuality: Int) {
        precondition(threads >= 1 && queueLimit >= 0)
        self.threads = threads
        self.queueLimit = queueLimit
        self.jpegQuality = jpegQuality
        threadPool = NIOThreadPool(numberOfThreads: threads)
        threadPool.start()
    }

    /// Renders admitted and not yet finished (running or waiting).
    package var load: Int { admitted.load(ordering: .relaxed) }

    /// Renders that started on a thread so far.
    package var started: Int { startedCount.load(ordering: .relaxed) }

    /// Renders cancelled so far because their client had gone: dropped from the queue, or stopped between rows.
    package var cancelled: Int { cancelledCount.load(ordering: .relaxed) }

    /// Runs `work` on a render thread with that thread's workspace and the job (whose ``RenderJob/isCancelled`` it
    /// checks between rows), then calls `completion` with its result (on the render thread), unless the pool is full.
    /// `completion` is called exactly once: with `CancellationError` when the job is cancelled before it starts (on
    /// the cancelling thread, its place freed at once) or when the pool shuts down first.
    ///
    /// - Returns: The job, to cancel when the client goes; `nil`, without calling anything, when `threads + queueLimit`
    ///   renders are already admitted.
    package func submit<T: Sendable>(
        _ work: @escaping @Sendable (RenderWorkspace, RenderJob) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> RenderJob? {
        guard admitted.wrappingAdd(1, ordering: .relaxed).newValue <= threads + queueLimit else {
            admitted.wrappingSubtract(1, ordering: .relaxed)
            return nil
        }
        let job = RenderJob { [self] in
            admitted.wrappingSubtract(1, ordering: .relaxed)
            completion(.failure(CancellationError()))
            // Counted once its completion has run (and given back what the render held).
            cancelledCount.wrappingAdd(1, ordering: .relaxed)
        }
        threadPool.submit { [self] state in
            // A job dropped while it waited was completed (and its place freed) when it was cancelled.
            guard job.start() else { return }
            let result: Result<T, any Error>
            if case .active = state {
                startedCount.wrappingAdd(1, ordering: .relaxed)
                result = Result {
                    let workspace = try workspaces.withLock { $0.popLast() } ?? RenderWorkspace(jpegQuality: jpegQuality)
                    defer { workspaces.withLock { $0.append(workspace) } }
                    return try work(workspace, job)
                }
            } else {
                result = .failure(CancellationError())
            }
            if job.finish(), case .failure(let error) = result, error is CancellationError {
                cancelledCount.wrappingAdd(1, ordering: .relaxed)
            }
            // The render is over once its result exists: free its place before anyone hears of it.
            admitted.wrappingSubtract(1, ordering: .relaxed)
            completion(result)
        }
        return job
    }

    /// Stops the threads once the renders admitted have finished; renders still waiting complete with
    /// `CancellationError`.
    package func shutdownGracefully(_ callback: @escaping @Sendable ((any Error)?) -> Void) {
        threadPool.shutdownGracefully(callback)
    }

    /// Stops the threads (after a failed start), blocking.
    @available(*, noasync)
    package func syncShutdown() {
        try? threadPool.syncShutdownGracefully()
    }

    /// Stops the threads (after a failed start).
    package func shutdown() async {
        try? await threadPool.shutdownGracefully()
    }
}
