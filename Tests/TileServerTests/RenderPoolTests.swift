import Dispatch
import Glibc
import Synchronization
import Testing

@testable import Rendering
@testable import TileServer

/// The render pool without a socket: at most threads + queue renders admitted; a cancelled job waiting for a thread is dropped at once (its place freed, its
/// completion called with `CancellationError`, its work never run); a running one sees the cancellation.
@Suite struct RenderPoolTests {
    /// A gate a test opens once: work blocked on it waits until then.
    final class Gate: Sendable {
        private let semaphore = DispatchSemaphore(value: 0)
        func wait() { semaphore.wait() }
        func open() { semaphore.signal() }
    }

    @Test func renderPoolRefusesBeyondThreadsPlusQueue() async throws {
        let pool = RenderPool(threads: 1, queueLimit: 1, jpegQuality: 90)
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let finished = Mutex(0)
        let done = DispatchGroup()
        for _ in 0..<2 {
            done.enter()
            let accepted = pool.submit { _, _ in
                started.signal()
                release.wait()
            } completion: { (result: Result<Void, any Error>) in
                if case .success = result { finished.withLock { $0 += 1 } }
                done.leave()
            }
            #expect(accepted != nil)
        }
        try await blocking { started.wait() }
        #expect(pool.load == 2)
        let refused = pool.submit({ _, _ in }, completion: { _ in }) == nil
        #expect(refused)
        release.signal()
        release.signal()
        try await blocking { done.wait() }
        #expect(finished.withLock { $0 } == 2)
        let acceptedAgain = pool.submit({ _, _ in }, completion: { _ in })
        #expect(acceptedAgain != nil)
        await pool.shutdown()
    }

    @Test func aCancelledQueuedJobIsDroppedAtOnceAndNeverRuns() async throws {
        let pool = RenderPool(threads: 1, queueLimit: 1, jpegQuality: 90)
        let gate = Gate()
        let ran = Atomic<Int>(0)
        let outcomes = Mutex<[String]>([])
        let blocker = pool.submit { _, _ in
            gate.wait()
        } completion: { _ in
            outcomes.withLock { $0.append("blocker") }
        }
        #expect(blocker != nil)
        let queued = try #require(
            pool.submit { _, _ in
                ran.wrappingAdd(1, ordering: .relaxed)
            } completion: { result in
                outcomes.withLock { $0.append((try? result.get()) == nil ? "queued cancelled" : "queued ran") }
            })
        #expect(pool.submit({ _, _ in }, completion: { _ in }) == nil, "the pool is full")
        queued.cancel()
        #expect(outcomes.withLock { $0 } == ["queued cancelled"])
        #expect(pool.load == 1 && pool.cancelled == 1)
        let next = pool.submit({ _, _ in }, completion: { _ in outcomes.withLock { $0.append("next") } })
        #expect(next != nil, "the dropped job's place is free again")
        queued.cancel()
        gate.open()
        #expect(await eventually { outcomes.withLock { $0.count } == 3 })
        #expect(ran.load(ordering: .relaxed) == 0)
        #expect(pool.cancelled == 1 && pool.started == 2 && pool.load == 0)
        await pool.shutdown()
    }

    @Test func aRunningJobSeesItsCancellation() async throws {
        let pool = RenderPool(threads: 1, queueLimit: 0, jpegQuality: 90)
        let started = Gate()
        let outcome = Mutex<String?>(nil)
        let job = try #require(
            pool.submit { _, job in
                started.open()
                while !job.isCancelled { usleep(1000) }
                throw CancellationError()
            } completion: { result in
                outcome.withLock { $0 = (try? result.get()) == nil ? "cancelled" : "finished" }
            })
        started.wait()
        #expect(!job.isCancelled)
        job.cancel()
        #expect(await eventually { outcome.withLock { $0 } != nil })
        #expect(outcome.withLock { $0 } == "cancelled")
        #expect(pool.cancelled == 1 && pool.started == 1 && pool.load == 0)
        await pool.shutdown()
    }
}
