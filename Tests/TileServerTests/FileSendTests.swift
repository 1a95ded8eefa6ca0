import Foundation
import Testing

@testable import TileServer

/// Misses the full cache does not admit are sent from their open files (`sendfile`): same bytes and headers as a
/// cached tile, in order on a pipelined connection, and the files are closed when their pyramid goes.
@Suite struct FileSendTests {
    /// Room for 3 tiles; no warming, so only requests fill the cache. Without `cachestat` (as before Linux 6.5),
    /// misses that are not admitted are read without waiting and sent from memory instead of with `sendfile`.
    private func configuration(_ fixture: PyramidFixture, cachestat: Bool = true) -> ServerConfiguration {
        var configuration = testConfiguration(root: fixture.root)
        configuration.cacheBytes = 3_300
        configuration.maxPrefetchTiles = 0
        configuration.usesCachestat = cachestat
        return configuration
    }

    @Test(arguments: [true, false])
    func missesTheFullCacheDoesNotAdmitAreSentFromTheirFiles(cachestat: Bool) async throws {
        let fixture = try bigPyramidFixture()
        try await withServer(fixture, configuration(fixture, cachestat: cachestat)) { server in
            for column in 0..<3 {
                #expect(try fetch(server, bigTile(column, 0)).header("X-Cache") == "miss")
            }
            #expect(server.statistics.diskReads == 3 && server.statistics.cacheEntries == 3)
            // Full: tiles asked for once are no more popular than the tile they would evict.
            for column in 0..<5 {
                let response = try fetch(server, fixture.residentBigTile(column, 1))
                #expect(response.status == 200 && response.header("X-Cache") == "miss")
                #expect(response.header("Content-Length") == "1000" && response.header("Content-Type") == "image/jpeg")
                #expect(response.header("Cache-Control") == "no-cache")
                #expect(response.header("Access-Control-Allow-Origin") == "*")
                #expect(response.body == PyramidFixture.tileBytes(level: 11, column: column, row: 1, count: 1000))
            }
            var statistics = server.statistics
            // Sent from their files, none admitted. (Now and then, on a machine busy writing, the kernel refuses a read
            // that must not wait even for a resident page: that miss is read on a file thread into the cache instead.)
            let fallbacks = 5 - statistics.fileSends
            #expect(fallbacks <= 2 && statistics.diskReads == 3 + fallbacks && statistics.cacheEvictions <= fallbacks)
            #expect(try fetch(server, "/metrics").text.contains("tiler_tile_file_sends_total \(statistics.fileSends)"))
            let sends = statistics.fileSends
            // What follows depends on the cache holding the first three tiles: checked when every miss was sent.
            guard fallbacks == 0 else { return }

            // Asked for again, a tile is now more popular than the least recently used one: read into the cache.
            let sent = try fetch(server, fixture.residentBigTile(4, 1))
            statistics = server.statistics
            #expect(statistics.diskReads == 9 - sends && statistics.cacheEvictions == 1 && statistics.fileSends == sends)
            let cached = try fetch(server, bigTile(4, 1))
            #expect(cached.header("X-Cache") == "hit" && cached.body == sent.body)
            // The same entity tag either way.
            #expect(sent.header("ETag") != nil && sent.header("ETag") == cached.header("ETag"))
        }
    }

    @Test(arguments: [true, false])
    func headAndConditionalRequestsOnASentFile(cachestat: Bool) async throws {
        let fixture = try bigPyramidFixture()
        try await withServer(fixture, configuration(fixture, cachestat: cachestat)) { server in
            // Cached and asked for often: a tile asked for three times does not win their place.
            for _ in 0..<4 {
                for column in 0..<3 {
                    _ = try fetch(server, bigTile(column, 0))
                }
            }
            let head = try fetch(server, fixture.residentBigTile(7, 7), method: "HEAD")
            #expect(head.status == 200 && head.header("Content-Length") == "1000" && head.body.isEmpty)
            let etag = try #require(head.header("ETag"))
            let notModified = try fetch(server, fixture.residentBigTile(7, 7), headers: ["If-None-Match: \(etag)"])
            #expect(notModified.status == 304 && notModified.header("ETag") == etag && notModified.body.isEmpty)
            let changed = try fetch(server, fixture.residentBigTile(7, 7), headers: ["If-None-Match: \"other\""])
            #expect(changed.status == 200 && changed.header("ETag") == etag)
            #expect(changed.body == PyramidFixture.tileBytes(level: 11, column: 7, row: 7, count: 1000))
            // HEAD and the two GETs were answered from the file, never admitted (a read that must not wait is now and then
            // refused on a busy machine: that one is read on a file thread instead).
            #expect(server.statistics.fileSends >= 1 && server.statistics.fileSends + server.statistics.diskReads == 6)
        }
    }

    @Test func aTileRewrittenInPlaceIsReopenedNotSentShort() async throws {
        let fixture = try bigPyramidFixture()
        var configuration = configuration(fixture)
        // One event loop: the second request meets the file the first one opened.
        configuration.eventLoopThreads = 1
        try await withServer(fixture, configuration) { server in
            for _ in 0..<4 {
                for column in 0..<3 {
                    _ = try fetch(server, bigTile(column, 0))
                }
            }
            #expect(try fetch(server, fixture.residentBigTile(5, 5)).body.count == 1000)
            // Truncated and rewritten in place (same inode, as `cp` over it would): shorter, new bytes.
            let replacement = Array(repeating: UInt8(ascii: "z"), count: 500)
            let handle = try #require(FileHandle(forWritingAtPath: fixture.root + "/big_files/11/5_5.jpg"))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: replacement)
            try handle.close()
            let response = try fetch(server, fixture.residentBigTile(5, 5))
            #expect(response.status == 200 && response.header("Content-Length") == "500" && response.body == replacement)
            #expect(server.statistics.fileSends + server.statistics.diskReads == 5 && server.statistics.cacheEntries == 3)
        }
    }

    @Test(arguments: [true, false])
    func aFileNotAllInThePageCacheIsReadOnAFileThreadNotSent(cachestat: Bool) async throws {
        let fixture = try bigPyramidFixture()
        let resident = try dropFromPageCache(fixture.root + "/big_files/11/6_6.jpg")
        try await withServer(fixture, configuration(fixture, cachestat: cachestat)) { server in
            for _ in 0..<4 {
                for column in 0..<3 {
                    _ = try fetch(server, bigTile(column, 0))
                }
            }
            // On a machine busy writing, the dropped pages may be read back before the request (seen twice under a
            // full test run beside a build): then a read that does not wait finds them, as it should.
            let back = try firstPageIsResident(fixture.root + "/big_files/11/6_6.jpg")
            let response = try fetch(server, bigTile(6, 6))
            #expect(response.status == 200 && response.header("X-Cache") == "miss")
            #expect(response.body == PyramidFixture.tileBytes(level: 11, column: 6, row: 6, count: 1000))
            let statistics = server.statistics
            guard cachestat else {
                // Without cachestat the gate is a read with RWF_NOWAIT, which may start the kernel's readahead and,
                // on a fast device, find the page already read: then it is sent from memory; else a file thread
                // (or the event loop's second try, after that readahead) reads it into the cache. One way or the
                // other, never both.
                #expect(statistics.fileSends + statistics.diskReads == 4, "resident after dropping: \(resident)")
                return
            }
            // Where the kernel could drop the pages (not tmpfs), sendfile could have waited for the disk: the file
            // thread read it instead. Where it could not, the file was all in memory and was sent.
            #expect(statistics.fileSends == (resident ? 1 : 0), "resident after dropping: \(resident)")
            #expect(statistics.diskReads == (resident ? 3 : 4))
            // The three cached tiles were read on event loops (from the page cache; on a machine busy writing, one may
            // have gone to a file thread), the dropped one never.
            #expect(statistics.diskReadsOnEventLoops <= (back ? 4 : 3), "resident again before the request: \(back)")
        }
    }

    @Test func pipelinedRequestsMixingSentFilesAndHitsAnswerInOrder() async throws {
        let fixture = try bigPyramidFixture()
        try await withServer(fixture, configuration(fixture)) { server in
            for column in 0..<3 {
                _ = try fetch(server, bigTile(column, 0))
            }
            let targets = [fixture.residentBigTile(5, 5), bigTile(0, 0), fixture.residentBigTile(6, 5), bigTile(1, 0), fixture.residentBigTile(7, 5)]
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send(targets.map { "GET \($0) HTTP/1.1\r\nHost: t\r\n\r\n" }.joined())
            var answered: [String?] = []
            for (index, target) in targets.enumerated() {
                let response = try connection.readResponse()
                let parts = target.split(separator: "/").last!.split(separator: ".")[0].split(separator: "_")
                let expected = PyramidFixture.tileBytes(level: 11, column: Int(parts[0])!, row: Int(parts[1])!, count: 1000)
                #expect(response.body == expected, "response \(index)")
                answered.append(response.header("X-Cache"))
            }
            // Now and then, on a machine busy writing (the whole suite at once), the kernel refuses a read that must
            // not wait even for a resident page: that miss is read on a file thread into the cache instead, evicting a
            // tile the next request then misses. The answers still come whole and in order; the hits are as asked only
            // when every miss was sent from its file.
            let fallbacks = 3 - server.statistics.fileSends
            #expect(fallbacks <= 2, "misses read into the cache instead of sent: \(fallbacks)")
            if fallbacks == 0 {
                #expect(answered == ["miss", "hit", "miss", "hit", "miss"])
            }
        }
    }

    /// A head and its file body are corked into one segment; the cork must come off after each flush, or every
    /// response would wait for the kernel's 200-ms cork timer.
    @Test func sentFilesAreNotHeldBackByTheCork() async throws {
        let fixture = try bigPyramidFixture()
        try await withServer(fixture, configuration(fixture)) { server in
            for column in 0..<3 {
                _ = try fetch(server, bigTile(column, 0))
            }
            let connection = try RawHTTPConnection(port: server.port)
            let clock = ContinuousClock()
            let started = clock.now
            for index in 0..<10 {
                let (column, row) = (index % 8, 1 + index / 8)
                try connection.request(fixture.residentBigTile(column, row))
                let response = try connection.readResponse()
                #expect(response.body == PyramidFixture.tileBytes(level: 11, column: column, row: row, count: 1000))
            }
            let elapsed = clock.now - started
            // Nearly all from their files (on a loaded machine a tile's pages are now and then not all resident, and it
            // is read instead), so the cork timer, if left on, would hold at least eight of them.
            #expect(server.statistics.fileSends >= 8)
            // Ten responses held by the timer take at least 2 s; answered at once, a few milliseconds.
            #expect(elapsed < .milliseconds(1500), "10 sent files took \(elapsed)")
        }
    }

    @Test func theFilesOfARemovedPyramidAreClosed() async throws {
        let fixture = try bigPyramidFixture()
        try await withServer(fixture, configuration(fixture)) { server in
            for column in 0..<8 {
                _ = try fetch(server, fixture.residentBigTile(column, 3))
            }
            // Not admitted, so sent from their files (on a loaded machine a tile's pages are now and then not all
            // resident, and it is read instead); either way its file stays open.
            #expect(server.statistics.fileSends >= 1)
            let files = fixture.root + "/big_files/"
            #expect(try Self.openDescriptors(under: files) >= 1)
            try fixture.removePyramid("big")
            #expect(try await eventually { try fetch(server, bigTile(0, 3)).status == 404 })
            // Closed on each event loop once the catalog dropped the pyramid: no deleted tile is held open.
            #expect(try await eventually { try Self.openDescriptors(under: files) == 0 })
        }
    }

    @Test func openFilesAreBoundedPerEventLoop() async throws {
        let fixture = try bigPyramidFixture()
        var configuration = configuration(fixture)
        configuration.openTileFilesPerLoop = 2
        configuration.eventLoopThreads = 1
        try await withServer(fixture, configuration) { server in
            for column in 0..<8 {
                let response = try fetch(server, fixture.residentBigTile(column, 6))
                #expect(response.body == PyramidFixture.tileBytes(level: 11, column: column, row: 6, count: 1000))
            }
            #expect(server.statistics.fileSends >= 1)
            #expect(try Self.openDescriptors(under: fixture.root + "/big_files/11/") <= 2)
        }
    }

    /// How many of this process's descriptors are open on tile files (`.jpg`) whose path starts with `prefix`
    /// (deleted ones included: the kernel shows them as `path (deleted)`).
    private static func openDescriptors(under prefix: String) throws -> Int {
        let real = URL(fileURLWithPath: prefix).resolvingSymlinksInPath().path + "/"
        return try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { name in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + name) else { return false }
            return (target.hasPrefix(real) || target.hasPrefix(prefix)) && target.contains(".jpg")
        }
    }
}
