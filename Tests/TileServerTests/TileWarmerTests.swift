import Dispatch
import Synchronization
import Testing

@testable import TileServer
@testable import TileSources

/// The warming queue: newest report first, and a viewer's new report supersedes what its earlier ones still had
/// pending, while other viewers' reports stay.
@Suite struct TileWarmerTests {
    @Test func aViewersNewReportSupersedesWhatItsEarlierOnesHadPending() async throws {
        let fixture = try bigPyramidFixture()
        try await withInProcessServer(fixture) { server in
            let image = try #require(server.context.catalog.images.first { $0.name == "big" })
            let warmed = Mutex<[String]>([])
            let started = Atomic<Bool>(false)
            let gate = DispatchSemaphore(value: 0)
            let warmer = TileWarmer(limit: 100) { key, _, _ in
                if key.column == 0 && key.row == 0 {
                    started.store(true, ordering: .relaxed)
                    gate.wait()
                }
                warmed.withLock { $0.append("\(key.column)_\(key.row)") }
            }
            func keys(row: Int, _ columns: [Int]) -> [TileKey] {
                columns.map { TileKey(image: image.id, address: TileAddress(level: 11, column: $0, row: row)) }
            }
            warmer.enqueue(keys(row: 0, [0, 1, 2]), of: image, viewer: "a")
            #expect(await eventually { started.load(ordering: .relaxed) })
            // Viewer a moved on: its new report replaces 1_0 and 2_0; viewer b's report is newer still.
            warmer.enqueue(keys(row: 1, [0, 1]), of: image, viewer: "a")
            warmer.enqueue(keys(row: 2, [0]), of: image, viewer: "b")
            gate.signal()
            #expect(await eventually { warmed.withLock { $0.count } >= 4 })
            try await Task.sleep(for: .milliseconds(100))
            #expect(warmed.withLock { $0 } == ["0_0", "0_2", "0_1", "1_1"])
            await warmer.shutdown()
        }
    }
}
