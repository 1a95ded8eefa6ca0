import Foundation
import Synchronization
import Testing

@testable import Slicing

/// A level of one strip refills it once its jobs have let go of it; the others take turns from the pool.
@Suite struct StripPoolTests {
    @Test func limitsArePerLevelWithExceptions() {
        let pool = StripPool(perLevel: 1, exceptions: [7: 3, 6: 2])
        #expect(pool.limit(7) == 3 && pool.limit(6) == 2 && pool.limit(5) == 1 && pool.limit(0) == 1)
    }

    @Test func reclaimWaitsForTheJobsHoldsOnly() {
        let pool = StripPool(perLevel: 1)
        let strip = pool.acquire(level: 3, rowBytes: 16, capacityRows: 4)
        pool.submit(strip, holds: 3)  // two jobs and the caller
        let released = Mutex(0)
        let jobs = Thread {
            for _ in 0..<2 {
                usleep(20_000)
                released.withLock { $0 += 1 }
                pool.release(strip)
            }
        }
        jobs.start()
        pool.reclaim(strip)
        #expect(released.withLock { $0 } == 2, "reclaim returned before the jobs let go")
        // Filling again: submitted and released as a fresh strip is, it goes back to the pool.
        pool.submit(strip, holds: 1)
        pool.release(strip)
        #expect(pool.acquire(level: 3, rowBytes: 16, capacityRows: 4) === strip)
    }

    @Test func reclaimTellsTheWaitObserver() {
        let pool = StripPool(perLevel: 1)
        let told = Mutex<[Bool]>([])
        pool.observeWaits { waiting in told.withLock { $0.append(waiting) } }
        let strip = pool.acquire(level: 0, rowBytes: 8, capacityRows: 2)
        pool.submit(strip, holds: 2)
        let job = Thread {
            usleep(20_000)
            pool.release(strip)
        }
        job.start()
        pool.reclaim(strip)
        #expect(told.withLock { $0 } == [true, false])
    }
}
