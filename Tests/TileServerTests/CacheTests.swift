import Foundation
import Glibc
import Testing
import TileServer

/// The tile cache: byte budget, viewport-aware eviction, and one disk read per tile however many ask at once.
@Suite struct CacheTests {
    @Test func budgetIsRespectedInBytes() async throws {
        let fixture = try bigPyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.cacheBytes = 20_000
        // No open files: every miss is read into the cache (none is sent from its file instead).
        configuration.openTileFilesPerLoop = 0
        try await withServer(fixture, configuration) { server in
            for column in 0..<8 {
                for row in 0..<5 {
                    let response = try fetch(server, bigTile(column, row))
                    #expect(response.body == PyramidFixture.tileBytes(level: 11, column: column, row: row, count: 1000))
                    #expect(server.statistics.cacheBytes <= 20_000)
                }
            }
            let statistics = server.statistics
            #expect(statistics.cacheBudget == 20_000)
            #expect(statistics.cacheEntries >= 15 && statistics.cacheEntries <= 19)
            #expect(statistics.cacheEvictions == 40 - statistics.cacheEntries)
            #expect(statistics.diskReads == 40)
        }
    }

    @Test func tilesThatLeftTheViewportAreTheOnesEvicted() async throws {
        let fixture = try bigPyramidFixture()
        // Room for exactly 12 tiles (each costs 1000 bytes plus 50–70 bytes of header lines).
        var configuration = testConfiguration(root: fixture.root)
        configuration.cacheBytes = 13_200
        try await withServer(fixture, configuration) { server in
            func visible(_ x: Int, _ y: Int) throws {
                let query = "/api/images/big/visible?x=\(x)&y=\(y)&width=768&height=512&zoomScale=1"
                #expect(try fetch(server, query).status == 200)
            }
            // Viewport A: columns 0–2, rows 0–1. Then C, far away: columns 5–7, rows 4–5. 12 tiles, all cached.
            try visible(0, 0)
            #expect(await eventually { server.statistics.cacheEntries == 6 })
            try visible(1280, 1024)
            #expect(await eventually { server.statistics.cacheEntries == 12 && server.statistics.diskReads == 12 })
            // Viewport B moves right from A: columns 2–4, rows 0–1. Its 4 new tiles push out 4 tiles: A's tiles
            // that are off-screen now — not column 2 (still on screen, though loaded first), not C (more recent).
            try visible(512, 0)
            #expect(await eventually { server.statistics.diskReads == 16 && server.statistics.cacheEvictions == 4 })
            let onScreen = [(2, 0), (2, 1), (3, 0), (3, 1), (4, 0), (4, 1)]
            let elsewhere = [(5, 4), (6, 4), (7, 4), (5, 5), (6, 5), (7, 5)]
            for (column, row) in onScreen + elsewhere {
                #expect(try fetch(server, bigTile(column, row)).header("X-Cache") == "hit", "\(column)_\(row)")
            }
            #expect(server.statistics.diskReads == 16)
            for (column, row) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                #expect(try fetch(server, bigTile(column, row)).header("X-Cache") == "miss", "\(column)_\(row)")
            }
            // Each was read into the cache or, not admitted (asked for no more often than the tile it would evict),
            // sent from its file.
            #expect(server.statistics.diskReads + server.statistics.fileSends == 20)
        }
    }

    @Test func concurrentMissesReadTheDiskOnce() async throws {
        let fixture = try bigPyramidFixture()
        // A large viewer file keeps the single file thread busy while the tile requests arrive.
        try fixture.write(String(repeating: "x", count: 16 << 20), to: "Public/big.txt")
        var configuration = testConfiguration(root: fixture.root)
        configuration.fileThreads = 1
        configuration.publicDirectory = fixture.base + "/Public"
        try await withServer(fixture, configuration) { server in
            for round in 0..<3 {
                let target = bigTile(round, 7)
                let blocker = try RawHTTPConnection(port: server.port)
                try blocker.request("/big.txt")
                // 16 connections, spread over both event loops, all asking for the same uncached tile.
                let connections = try (0..<16).map { _ in try RawHTTPConnection(port: server.port) }
                for connection in connections { try connection.request(target) }
                let expected = PyramidFixture.tileBytes(level: 11, column: round, row: 7, count: 1000)
                for connection in connections {
                    #expect(try connection.readResponse().body == expected)
                }
                #expect(try blocker.readResponse().body.count == 16 << 20)
                #expect(server.statistics.diskReads == round + 1)
            }
        }
    }

    @Test func missesInThePageCacheAreReadOnTheEventLoop() async throws {
        let fixture = try bigPyramidFixture()
        // Written back first: a page still under writeback is locked, and a read that must not wait is refused it (in
        // a clean root's CI-like run, 2 of the 8 were, while the other suites wrote hundreds of megabytes).
        fixture.writeBack()
        var configuration = testConfiguration(root: fixture.root)
        configuration.cacheBytes = 0
        // The warming thread is off, so every read below is a request's own; without open files, every miss is read.
        configuration.maxPrefetchTiles = 0
        configuration.openTileFilesPerLoop = 0
        try await withServer(fixture, configuration) { server in
            // The fixture's tiles were just written, so their bytes are in the page cache: no file-thread hop.
            for column in 0..<8 {
                let response = try fetch(server, fixture.residentBigTile(column, 2))
                #expect(response.header("X-Cache") == "miss")
                #expect(response.body == PyramidFixture.tileBytes(level: 11, column: column, row: 2, count: 1000))
            }
            let statistics = server.statistics
            #expect(statistics.diskReads == 8)
            // All of them, or all but one: a read that must not wait gives up (EAGAIN) on a page another process holds
            // locked for a moment, and the suites running alongside write and read hundreds of megabytes. That read
            // then goes to a file thread, as designed.
            #expect(statistics.diskReadsOnEventLoops >= 7, "\(statistics.diskReadsOnEventLoops) of 8 reads on the event loop")
            #expect(statistics.diskReadsWarming == 0)
            let metrics = try fetch(server, "/metrics").text
            #expect(metrics.contains("tiler_tile_event_loop_reads_total \(statistics.diskReadsOnEventLoops)"))
        }
    }

    @Test(
        .enabled(
            if: fixturePagesCanBeDropped,
            "skipped: the temporary folder's file system keeps every page resident (tmpfs), so no tile is only on disk"))
    func aTileOnlyOnDiskIsReadOnAFileThread() async throws {
        let fixture = try bigPyramidFixture()
        var configuration = testConfiguration(root: fixture.root)
        configuration.maxPrefetchTiles = 0
        try await withServer(fixture, configuration) { server in
            // Up to three tiles: on a loaded machine (or a sandboxed file system) a dropped page can come back
            // before the request, and then reading it on the event loop is right. One tile whose pages stayed out
            // must be read on a file thread.
            var droppedAndOffLoop = false
            var dropped = false
            for column in 5..<8 {
                let resident = try dropFromPageCache(fixture.root + "/big_files/11/\(column)_5.jpg")
                let before = server.statistics
                let response = try fetch(server, bigTile(column, 5))
                #expect(response.status == 200 && response.header("X-Cache") == "miss")
                #expect(response.body == PyramidFixture.tileBytes(level: 11, column: column, row: 5, count: 1000))
                let after = server.statistics
                #expect(after.diskReads == before.diskReads + 1)
                if !resident {
                    dropped = true
                    if after.diskReadsOnEventLoops == before.diskReadsOnEventLoops {
                        droppedAndOffLoop = true
                        break
                    }
                }
            }
            // The file system drops pages (the trait's probe): a test that dropped none checked nothing, and fails.
            #expect(dropped, "no tile's pages could be dropped from the page cache")
            #expect(!dropped || droppedAndOffLoop, "a tile whose pages were dropped was read on an event loop three times")
        }
    }

    @Test func warmingLoadsTheViewportInTheBackground() async throws {
        let fixture = try bigPyramidFixture()
        try await withServer(fixture) { server in
            #expect(try fetch(server, "/api/images/big/visible?x=0&y=0&width=1024&height=768&zoomScale=1").status == 200)
            // 4 × 3 tiles, read by the warming thread, not by requests.
            #expect(await eventually { server.statistics.diskReadsWarming == 12 })
            #expect(server.statistics.diskReads == 12 && server.statistics.cacheEntries == 12)
            #expect(try fetch(server, bigTile(3, 2)).header("X-Cache") == "hit")
            // Each warmed tile's lag was counted; one of the twelve was then asked for, and counted once.
            #expect(try fetch(server, bigTile(3, 2)).header("X-Cache") == "hit")
            let statistics = server.statistics
            #expect(statistics.warmingLag.buckets.reduce(0, +) == 12 && statistics.warmingLag.sum > 0)
            #expect(statistics.diskReadsWarmingRequested == 1 && statistics.tileJoins == 0)
            #expect(statistics.warmingCPUSeconds > 0)
            let metrics = try fetch(server, "/metrics").text
            #expect(metrics.contains("tiler_warming_lag_seconds_count 12\n"))
            #expect(metrics.contains("tiler_tile_warming_reads_requested_total 1\n"))
            // A second query over the same tiles warms nothing more.
            #expect(try fetch(server, "/api/images/big/visible?x=0&y=0&width=1024&height=768&zoomScale=1").status == 200)
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.statistics.diskReads == 12)
        }
    }

    @Test func zeroBudgetServesFromTheFileEveryTime() async throws {
        let fixture = try bigPyramidFixture()
        for openFiles in [0, 16] {
            var configuration = testConfiguration(root: fixture.root)
            configuration.cacheBytes = 0
            configuration.openTileFilesPerLoop = openFiles
            try await withServer(fixture, configuration) { server in
                for _ in 0..<3 {
                    let response = try fetch(server, fixture.residentBigTile(1, 1))
                    #expect(response.header("X-Cache") == "miss")
                    #expect(response.body == PyramidFixture.tileBytes(level: 11, column: 1, row: 1, count: 1000))
                }
                // Sent straight from the file when it is kept open, else read each time. A file the kernel does not
                // call wholly in the page cache (now and then while other suites write) is read instead of sent.
                let statistics = server.statistics
                #expect(statistics.fileSends + statistics.diskReads == 3, "\(statistics)")
                #expect(openFiles > 0 ? statistics.fileSends >= 1 : statistics.fileSends == 0, "\(statistics)")
                #expect(server.statistics.cacheEntries == 0)
            }
        }
    }
}
