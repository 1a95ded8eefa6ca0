import Dispatch
import Synchronization
import Testing

@testable import TileServer
@testable import TileSources

/// The render budget without a socket: what fits, the one render always admitted, resizing, and that every
/// reservation gives its bytes back exactly once however it ends.
@Suite struct RenderBudgetTests {
    @Test func reservationsFitTheBudgetAndGiveTheirBytesBack() throws {
        let budget = RenderBudget(limit: 100)
        let first = try #require(budget.reserve(60))
        let second = try #require(budget.reserve(40))
        #expect(budget.reserved == 100)
        #expect(budget.reserve(1) == nil)
        #expect(budget.refused == 1)
        first.release()
        #expect(budget.reserved == 40)
        let third = try #require(budget.reserve(60))
        second.release()
        third.release()
        #expect(budget.reserved == 0 && budget.refused == 1)
    }

    @Test func oneRenderIsAdmittedWhateverItsSizeWhenNothingIsHeld() throws {
        for limit in [0, 10] {
            let budget = RenderBudget(limit: limit)
            let alone = try #require(budget.reserve(1000), "limit \(limit)")
            #expect(budget.reserve(0) == nil || limit > 0)
            #expect(budget.reserve(1) == nil)
            alone.release()
            #expect(budget.reserved == 0)
            #expect(budget.reserve(1000) != nil)
            #expect(budget.reserved == 0, "a reservation dropped at once gives its bytes back")
        }
    }

    @Test func releasingTwiceOrAfterResizingCountsOnce() throws {
        let budget = RenderBudget(limit: 1000)
        let reservation = try #require(budget.reserve(300))
        reservation.resize(to: 120)
        #expect(budget.reserved == 120 && reservation.bytes == 120)
        reservation.resize(to: 2000)
        #expect(budget.reserved == 2000, "a body larger than the estimate is counted as it is")
        reservation.release()
        reservation.release()
        reservation.resize(to: 50)
        #expect(budget.reserved == 0 && reservation.isReleased)
    }

    @Test func droppingAReservationReleasesIt() throws {
        let budget = RenderBudget(limit: 1000)
        do {
            let reservation = try #require(budget.reserve(500))
            reservation.resize(to: 200)
            #expect(budget.reserved == 200)
        }
        #expect(budget.reserved == 0)
    }

    @Test func concurrentReservationsNeverLeakOrOvershoot() {
        let budget = RenderBudget(limit: 10_000)
        let most = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            for round in 0..<2_000 {
                guard let reservation = budget.reserve(100 + (worker * 31 + round) % 900) else { continue }
                most.max(budget.reserved, ordering: .relaxed)
                if round % 3 == 0 { reservation.resize(to: round % 100) }
                if round % 2 == 0 { reservation.release() }
                if round % 5 == 0 { reservation.release() }
            }
        }
        // Beyond the limit only by the one reservation admitted alone (< 1000 bytes).
        #expect(most.load(ordering: .relaxed) < budget.limit + 1000)
        #expect(budget.reserved == 0)
    }
}
