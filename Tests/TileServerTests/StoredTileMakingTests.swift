import Foundation
import NIOCore
import NIOPosix
import Synchronization
import Testing
import TileGeometry

@testable import HTTPCore
@testable import TileServer
@testable import TileSources

/// Tiles made from a stored pyramid's pixels hold their working memory in the render budget while they are made (503
/// with `Retry-After` when it is in use; passed-through tiles need none), and are not made when every request for
/// them was cancelled before a thread took them.
@Suite(.serialized) struct StoredTileMakingTests {
    static let geometry = DZIDescriptor(width: 1100, height: 700, tileSize: 256, overlap: 0, format: "jpg").pyramid

    @Test func madeTilesNeedRoomInTheRenderBudgetPassedThroughOnesDoNot() async throws {
        let fixture = try await blocking { try StoredPyramidTests.makeFixture() }
        var configuration = testConfiguration(root: fixture.root)
        configuration.iiif.renderBudgetBytes = 1
        try await EmbeddedConnection.with(configuration) { connection in
            let budget = connection.runtime.context.renderBudget
            let held = try #require(budget.reserve(1))
            let top = Self.geometry.maxLevel
            // Lossless 512-pixel stored tiles: every tile is made, and the budget is in use.
            let refused = try await connection.send("GET /images/lossless_files/\(top)/1_1.jpg HTTP/1.1\r\nHost: t\r\n\r\n")
            #expect(refused.hasPrefix("HTTP/1.1 503") && refused.contains("Retry-After: 1\r\n"), "\(refused.prefix(200))")
            #expect(refused.contains("memory for rendering images is in use"))
            // A stored JPEG tile is passed through: no pixels, no budget.
            let passed = try await StoredPyramidTests.get(connection, "/images/photo_files/\(top)/1_1.jpg")
            #expect(passed.status == 200)
            held.release()
            let made = try await StoredPyramidTests.get(connection, "/images/lossless_files/\(top)/1_1.jpg")
            #expect(made.status == 200 && made.bytes.starts(with: [0xFF, 0xD8]))
            // Given back once made: the tile now lives in the tile cache, under its own budget.
            #expect(budget.reserved == 0)
        }
    }

    /// Whether a load waits for a file thread (its own read, or one it joined).
    static func waits(_ start: TileStore.LoadStart) -> Bool {
        if case .now = start { return false }
        return true
    }

    @Test func aTileEveryRequestForWhichWasCancelledIsNotMade() async throws {
        let fixture = try await blocking { try StoredPyramidTests.makeFixture() }
        try await EmbeddedConnection.with(testConfiguration(root: fixture.root)) { connection in
            let image = try #require(connection.runtime.context.catalog.images.first { $0.name == "lossless" })
            let pool = NIOThreadPool(numberOfThreads: 1)
            pool.start()
            let store = TileStore(budget: 1 << 20, threadPool: pool)
            let gate = DispatchSemaphore(value: 0)
            // The only file thread is busy: the tiles below wait for it.
            pool.submit { _ in gate.wait() }
            let top = Self.geometry.maxLevel
            let alone = TileKey(image: image.id, address: TileAddress(level: top, column: 0, row: 0))
            let shared = TileKey(image: image.id, address: TileAddress(level: top, column: 1, row: 0))
            let results = ResultBox()
            let (gone, leaving, staying) = (RenderJob(onDrop: {}), RenderJob(onDrop: {}), RenderJob(onDrop: {}))
            #expect(Self.waits(store.loadNow(alone, of: image, job: gone) { results.put("alone", $0) }))
            #expect(Self.waits(store.loadNow(shared, of: image, job: leaving) { results.put("leaving", $0) }))
            #expect(Self.waits(store.loadNow(shared, of: image, job: staying) { results.put("staying", $0) }))
            gone.cancel()
            leaving.cancel()
            gate.signal()
            let done = try await results.wait(for: 3)
            // Its only client went: not made, not cached.
            #expect(done["alone"].map { if case .failure(let error) = $0 { error is CancellationError } else { false } } == true)
            #expect(store.cached(alone) == nil && store.abandonedMakeCount == 1)
            // One of its two clients is still there: made once, for both.
            #expect(
                done["staying"].map {
                    if case .success(let file) = $0 { file.bodySlice(0..<2).readableBytesView.elementsEqual([0xFF, 0xD8]) } else { false }
                } == true)
            #expect(store.cached(shared) != nil && store.readCount == 1)
            try await pool.shutdownGracefully()
        }
    }
}

/// Results of loads, by name, collected from the file threads.
private final class ResultBox: Sendable {
    private let results = Mutex<[String: Result<LoadedFile, any Error>]>([:])

    func put(_ name: String, _ result: Result<LoadedFile, any Error>) {
        results.withLock { $0[name] = result }
    }

    /// The results once `count` have arrived (within 10 s).
    func wait(for count: Int) async throws -> [String: Result<LoadedFile, any Error>] {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            let now = results.withLock { $0 }
            if now.count >= count { return now }
            try await Task.sleep(for: .milliseconds(5))
        }
        return results.withLock { $0 }
    }
}
