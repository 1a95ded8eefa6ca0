import Dispatch
import Synchronization
import Testing
import TileCache

@Suite struct SingleFlightTests {
    struct DiskError: Error, Equatable {
        var path: String
    }

    /// What the callbacks received, in arrival order.
    typealias Received = Locked<[Result<Int, any Error>]>

    func values(_ received: Received) -> [Int?] {
        received.value.map { try? $0.get() }
    }

    @Test func concurrentCallersForOneKeyLoadItOnceAndAllGetTheResult() {
        let flight = SingleFlight<String, Int>()
        let received = Received([])
        let loaders = Locked(0)
        let callers = 32
        DispatchQueue.concurrentPerform(iterations: callers) { _ in
            if flight.join("3/1_2", onResult: { value in received.withLock { $0.append(value) } }) {
                loaders.withLock { $0 += 1 }
            }
        }
        #expect(loaders.value == 1)
        #expect(received.value.isEmpty && flight.waiterCount(for: "3/1_2") == callers && flight.inFlightCount == 1)
        #expect(flight.complete("3/1_2", with: .success(42)) == callers)
        #expect(values(received) == Array(repeating: 42, count: callers))
        #expect(flight.inFlightCount == 0 && flight.waiterCount(for: "3/1_2") == nil)
        // The flight is over: the next caller loads afresh.
        #expect(flight.join("3/1_2") { _ in })
    }

    @Test func aLeaderIsNotCalledBackUnlessItJoins() {
        let flight = SingleFlight<String, Int>()
        let received = Received([])
        let leaderCalls = Locked(0)
        #expect(flight.lead("0/0_0") { _ in leaderCalls.withLock { $0 += 1 } })
        #expect(flight.waiterCount(for: "0/0_0") == 0)
        // A second caller waits like any join.
        #expect(!flight.lead("0/0_0") { value in received.withLock { $0.append(value) } })
        #expect(flight.waiterCount(for: "0/0_0") == 1)
        #expect(flight.complete("0/0_0", with: .success(7)) == 1)
        #expect(values(received) == [7] && leaderCalls.value == 0)
        // A leader that hands the load on joins its own flight and then hears the result.
        #expect(flight.lead("0/0_0") { _ in leaderCalls.withLock { $0 += 1 } })
        #expect(!flight.join("0/0_0") { _ in leaderCalls.withLock { $0 += 1 } })
        #expect(flight.complete("0/0_0", with: .success(8)) == 1)
        #expect(leaderCalls.value == 1 && flight.inFlightCount == 0)
    }

    @Test func anErrorReachesEveryCaller() {
        let flight = SingleFlight<String, Int>()
        let received = Received([])
        var loaders = 0
        for _ in 0..<5 {
            let mustLoad = flight.join("missing") { value in received.withLock { $0.append(value) } }
            loaders += mustLoad ? 1 : 0
        }
        #expect(loaders == 1)
        flight.complete("missing", with: .failure(DiskError(path: "a/missing.jpeg")))
        let errors = received.value.map { result -> DiskError? in
            guard case .failure(let error) = result else { return nil }
            return error as? DiskError
        }
        #expect(errors == Array(repeating: DiskError(path: "a/missing.jpeg"), count: 5))
    }

    @Test func differentKeysFlyIndependently() {
        let flight = SingleFlight<Int, Int>()
        let received = Locked<[String]>([])
        #expect(flight.join(1) { r in received.withLock { $0.append("1: \((try? r.get()) ?? -1)") } })
        #expect(flight.join(2) { r in received.withLock { $0.append("2: \((try? r.get()) ?? -1)") } })
        #expect(!flight.join(1) { r in received.withLock { $0.append("1 again: \((try? r.get()) ?? -1)") } })
        #expect(flight.complete(2, with: .success(20)) == 1)
        #expect(flight.complete(1, with: .success(10)) == 2)
        #expect(received.value == ["2: 20", "1: 10", "1 again: 10"])
    }

    /// Loaders complete as soon as they load, racing with joins: flights come and go, but every caller gets
    /// exactly one result, from a load that was under way when it joined.
    @Test func callersRacingWithCompletionsEachGetOneResult() {
        let flight = SingleFlight<Int, Int>()
        let received = Received([])
        let loads = Locked(0)
        let callers = 2_000
        DispatchQueue.concurrentPerform(iterations: callers) { caller in
            let key = caller % 3
            if flight.join(key, onResult: { value in received.withLock { $0.append(value) } }) {
                let load = loads.withLock { count in
                    count += 1
                    return count
                }
                flight.complete(key, with: .success(load))
            }
        }
        let results = values(received)
        #expect(results.count == callers && flight.inFlightCount == 0)
        #expect(results.allSatisfy { ($0 ?? 0) >= 1 && ($0 ?? 0) <= loads.value })
        #expect(loads.value >= 3 && loads.value <= callers)
    }

    @Test func completingAKeyNotInFlightIsAProgrammerError() async {
        await #expect(processExitsWith: .failure) {
            SingleFlight<Int, Int>().complete(1, with: .success(1))
        }
    }

    @Test func asyncCallersShareOneLoad() async throws {
        let flight = SingleFlight<String, Int>()
        let loads = Locked(0)
        let callers = 16
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    try await flight.value(for: "tile") {
                        loads.withLock { $0 += 1 }
                        await waitForWaiters(flight, "tile", count: callers - 1)
                        return 7
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(loads.value == 1 && values == Array(repeating: 7, count: callers) && flight.inFlightCount == 0)
    }

    @Test func asyncCallersAllGetTheLoadersError() async {
        let flight = SingleFlight<String, Int>()
        let callers = 8
        let errors = await withTaskGroup(of: DiskError?.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    do {
                        _ = try await flight.value(for: "tile") {
                            await waitForWaiters(flight, "tile", count: callers - 1)
                            throw DiskError(path: "gone.jpeg")
                        }
                        return nil
                    } catch {
                        return error as? DiskError
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(errors == Array(repeating: DiskError(path: "gone.jpeg"), count: callers))
    }
}

/// Yields until `count` callers wait on `key` (bounded, so that a lost waiter fails the test instead of hanging).
func waitForWaiters(_ flight: SingleFlight<String, Int>, _ key: String, count: Int) async {
    for _ in 0..<100_000 where (flight.waiterCount(for: key) ?? 0) < count {
        await Task.yield()
    }
}
