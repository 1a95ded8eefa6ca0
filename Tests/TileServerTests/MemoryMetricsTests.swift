import Testing

@testable import HTTPCore
@testable import TileServer

/// What the process holds, as `/metrics` shows it (issue 30, item 7), and the trimming that gives free heap pages back.
@Suite struct MemoryMetricsTests {
    /// The value of the sample `name` (a line `name value`) in a Prometheus text.
    static func value(_ name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    @Test func metricsShowTheProcessMemoryBesideTheBudgets() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 1000, height: 600)
        var configuration = testConfiguration(root: fixture.root)
        configuration.cacheBytes = 3 << 20
        let connection = try await EmbeddedConnection(configuration)
        let router = connection.router()
        var exchange = Exchange(malformedAt: .now())
        let metrics = try #require(RouterTests.body(router.respond(uri: "/metrics", exchange: &exchange)))
        #expect(metrics.status == .ok)
        let text = metrics.text
        for (name, type) in [
            ("tiler_process_resident_bytes", "gauge"), ("tiler_process_resident_peak_bytes", "gauge"), ("tiler_malloc_system_bytes", "gauge"),
            ("tiler_malloc_in_use_bytes", "gauge"), ("tiler_malloc_free_bytes", "gauge"), ("tiler_malloc_arenas", "gauge"),
            ("tiler_malloc_trims_total", "counter"), ("tiler_malloc_trimmed_bytes_total", "counter"),
            ("tiler_malloc_trim_seconds_total", "counter"),
        ] {
            #expect(text.contains("# TYPE \(name) \(type)\n"), "\(name)")
            #expect(Self.value(name, in: text) != nil, "\(name)")
        }
        let resident = try #require(Self.value("tiler_process_resident_bytes", in: text))
        let peak = try #require(Self.value("tiler_process_resident_peak_bytes", in: text))
        let system = try #require(Self.value("tiler_malloc_system_bytes", in: text))
        let inUse = try #require(Self.value("tiler_malloc_in_use_bytes", in: text))
        let free = try #require(Self.value("tiler_malloc_free_bytes", in: text))
        // A test process holds a few MiB at least; peaks are never below the present.
        #expect(resident > Double(1 << 20) && peak >= resident)
        #expect(system > 0 && inUse > 0 && free >= 0 && inUse <= system)
        #expect(try #require(Self.value("tiler_malloc_arenas", in: text)) >= 1)
        // The budgets to read them against.
        #expect(Self.value("tiler_cache_budget_bytes", in: text) == Double(3 << 20))
        #expect(Self.value("tiler_iiif_render_budget_bytes", in: text) == Double(configuration.iiif.renderBudgetBytes))
        await connection.stop()
    }

    @Test func aTrimGivesFreedHeapPagesBack() async throws {
        ProcessMemory.configure()
        // Sets the baseline the next call measures growth from (or trims what other tests left).
        ProcessMemory.trimIfWorthwhile()
        let before = ProcessMemory.sample()
        // 64 MiB of touched 32 KiB blocks (below the mapping threshold: inside a heap), every other one freed: 32 MiB
        // of holes no neighbour can merge with, which only a trim returns.
        let blocks = (0..<2048).map { _ in
            let block = UnsafeMutableRawPointer.allocate(byteCount: 32 << 10, alignment: 16)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: 32 << 10)
            return block
        }
        for block in blocks.enumerated() where block.offset.isMultiple(of: 2) { block.element.deallocate() }
        // Another test's server may trim first (every half second), perhaps between the baseline and the frees, giving
        // nothing back: what is waited for is bytes given back, not only a trim.
        var after = ProcessMemory.sample()
        for _ in 0..<40 where after.trimmedBytes == before.trimmedBytes {
            ProcessMemory.trimIfWorthwhile()
            after = ProcessMemory.sample()
            if after.trimmedBytes == before.trimmedBytes { try await Task.sleep(for: .milliseconds(50)) }
        }
        for block in blocks.enumerated() where !block.offset.isMultiple(of: 2) { block.element.deallocate() }
        #expect(after.trims > before.trims)
        #expect(after.trimmedBytes > before.trimmedBytes)
        #expect(after.trimSeconds >= before.trimSeconds)
    }
}
