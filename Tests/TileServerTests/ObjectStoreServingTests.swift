import Foundation
import NIOCore
import ObjectStore
import ObjectStoreTestSupport
import Testing

@testable import TileServer
@testable import TileSources

/// `tiler serve s3://BUCKET/PREFIX`, against a real Ceph RADOS Gateway: the SZIs a bucket holds are served as the
/// same files under ROOT are — listed, their descriptors and every tile byte for byte, cached, warmed — each tile
/// one ranged GET pinned to the version indexed; a replaced object is a new version, never a mix of two.
@Suite(.serialized) struct ObjectStoreServingTests {
    /// A bucket holding `imgs/alpha.szi`, `imgs/maps/beta.szi` (the same archive) and `imgs/notes.txt`, and the
    /// fixture the archive was written in (for the expected bytes).
    private func bucket() async throws -> (client: S3Client, gateway: TestGateway, fixture: PyramidFixture) {
        let gateway = try TestGateway.shared()
        let client = try await gateway.makeBucket("serving")
        let fixture = try PyramidFixture()
        try fixture.addArchive("alpha", width: 1000, height: 700, tileBytes: 300)
        let archive = try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/alpha.szi"))
        _ = try await client.put("imgs/alpha.szi", body: ByteBuffer(bytes: archive))
        _ = try await client.put("imgs/maps/beta.szi", body: ByteBuffer(bytes: archive))
        _ = try await client.put("imgs/notes.txt", body: ByteBuffer(string: "not a pyramid"))
        return (client, gateway, fixture)
    }

    private func configuration(_ gateway: TestGateway, bucket: String, root: String = "", secret: String? = nil) -> ServerConfiguration {
        var configuration = testConfiguration(root: root)
        configuration.objectRoots = ["s3://\(bucket)/imgs"]
        configuration.environment = [
            "AWS_ACCESS_KEY_ID": gateway.accessKey, "AWS_SECRET_ACCESS_KEY": secret ?? gateway.secretKey,
            "AWS_ENDPOINT_URL": gateway.endpoint, "AWS_REGION": gateway.region,
        ]
        // Rescans only when the test asks: what a replaced object does before and after is then certain.
        configuration.rescanInterval = .seconds(3600)
        configuration.fullRescanInterval = .seconds(3600)
        return configuration
    }

    @Test func theArchivesOfABucketAreServedAsFilesUnderROOTAre() async throws {
        let (client, gateway, fixture) = try await bucket()
        defer { Task { try? await client.shutdown() } }
        let server = try await Server.start(configuration(gateway, bucket: client.configuration.location.bucket))
        do {
            let list = try fetch(server, "/api/images").text
            #expect(list.contains("\"name\":\"alpha\"") && list.contains("\"name\":\"maps/beta\"") && !list.contains("notes"))
            let descriptor = try fetch(server, "/images/maps/beta.dzi")
            #expect(descriptor.status == 200 && descriptor.text.contains("Width=\"1000\""))
            // Every tile of the finest level, byte for byte: a miss (one ranged GET), then a hit with the same tag.
            for column in 0..<4 {
                for row in 0..<3 {
                    let path = "/images/alpha_files/10/\(column)_\(row).jpg"
                    let miss = try fetch(server, path)
                    #expect(miss.status == 200 && miss.header("X-Cache") == "miss", "\(path)")
                    #expect(miss.body == PyramidFixture.tileBytes(level: 10, column: column, row: row, count: 300), "\(path)")
                    let hit = try fetch(server, path)
                    #expect(hit.header("X-Cache") == "hit" && hit.header("ETag") == miss.header("ETag"))
                    let etag = try #require(miss.header("ETag"))
                    #expect(try fetch(server, path, headers: ["If-None-Match: \(etag)"]).status == 304)
                }
            }
            let partial = try fetch(server, "/images/alpha_files/10/1_1.jpg", headers: ["Range: bytes=10-19"])
            #expect(partial.status == 206 && partial.body == Array(PyramidFixture.tileBytes(level: 10, column: 1, row: 1, count: 300)[10..<20]))
            #expect(try fetch(server, "/images/alpha_files/10/9_9.jpg").status == 404)
            #expect(server.statistics.diskReads == 12 && server.statistics.fileSends == 0)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
        withExtendedLifetime(fixture) {}
    }

    @Test func aViewportIsWarmedFromTheStore() async throws {
        let (client, gateway, _) = try await bucket()
        defer { Task { try? await client.shutdown() } }
        let server = try await Server.start(configuration(gateway, bucket: client.configuration.location.bucket))
        do {
            #expect(try fetch(server, "/api/images/alpha/visible?x=0&y=0&width=1000&height=700&zoomScale=1").status == 200)
            // 4 × 3 tiles, fetched by warming without a thread waiting on each: then every one is a hit.
            #expect(await eventually { server.statistics.diskReadsWarming == 12 })
            for column in 0..<4 {
                #expect(try fetch(server, "/images/alpha_files/10/\(column)_2.jpg").header("X-Cache") == "hit")
            }
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func aReplacedObjectIsANewVersionNeverAMix() async throws {
        let (client, gateway, fixture) = try await bucket()
        defer { Task { try? await client.shutdown() } }
        let server = try await Server.start(configuration(gateway, bucket: client.configuration.location.bucket))
        do {
            let list = try fetch(server, "/api/images").text
            let oldVersion = try #require(list.firstRange(of: "/images/alpha@").map { String(list[$0.upperBound...].prefix(12)) })
            #expect(try fetch(server, "/images/alpha_files/10/0_0.jpg").status == 200)
            // Replaced with tiles of other bytes: the old index's ranges would now read the new object's bytes.
            try fixture.addArchive("alpha", width: 1000, height: 700, tileBytes: 500, fileName: "alpha2.szi")
            let replacement = try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/alpha2.szi"))
            _ = try await client.put("imgs/alpha.szi", body: ByteBuffer(bytes: replacement))
            let stale = try fetch(server, "/images/alpha_files/10/1_0.jpg")
            #expect(stale.status == 503 && stale.header("Retry-After") == "1")
            let changes = await server.rescan()
            #expect(changes.added == 1 && changes.removed == 1)
            let fresh = try fetch(server, "/images/alpha_files/10/1_0.jpg")
            #expect(fresh.status == 200 && fresh.body == PyramidFixture.tileBytes(level: 10, column: 1, row: 0, count: 500))
            #expect(try fetch(server, "/images/alpha@\(oldVersion)_files/10/1_0.jpg").status == 404)
            // The other object was not touched: still its first version.
            #expect(try fetch(server, "/images/maps/beta_files/10/1_0.jpg").body.count == 300)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func aBucketBesideROOTLeavesROOTItsNames() async throws {
        let (client, gateway, _) = try await bucket()
        defer { Task { try? await client.shutdown() } }
        let local = try PyramidFixture()
        try local.addPyramid("alpha", width: 512, height: 512)
        try local.addPyramid("gamma", width: 512, height: 512)
        try await withServer(local, configuration(gateway, bucket: client.configuration.location.bucket, root: local.root)) { server in
            let list = try fetch(server, "/api/images").text
            #expect(list.contains("\"name\":\"gamma\"") && list.contains("\"name\":\"maps/beta\""))
            // `alpha` is ROOT's (512 wide), not the bucket's (1000).
            #expect(try fetch(server, "/images/alpha.dzi").text.contains("Width=\"512\""))
            #expect(server.statistics.images == 3)
        }
    }

    @Test func aDeepZoomFolderIsServedAnObjectATile() async throws {
        let (client, gateway, fixture) = try await bucket()
        defer { Task { try? await client.shutdown() } }
        // `maps/gamma.dzi` with its tiles but one, one object each; `delta.dzi` without a tiles folder (not yet).
        try fixture.addPyramid("gamma", width: 600, height: 300, tileBytes: 200)
        try FileManager.default.removeItem(atPath: fixture.root + "/gamma_files/10/2_1.jpg")
        let walker = try #require(FileManager.default.enumerator(atPath: fixture.root + "/gamma_files"))
        for case let relative as String in walker where relative.hasSuffix(".jpg") {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.root + "/gamma_files/" + relative))
            _ = try await client.put("imgs/maps/gamma_files/" + relative, body: ByteBuffer(bytes: bytes))
        }
        let xml = try String(contentsOfFile: fixture.root + "/gamma.dzi", encoding: .utf8)
        _ = try await client.put("imgs/maps/gamma.dzi", body: ByteBuffer(string: xml))
        _ = try await client.put("imgs/delta.dzi", body: ByteBuffer(string: xml))
        let server = try await Server.start(configuration(gateway, bucket: client.configuration.location.bucket))
        do {
            let list = try fetch(server, "/api/images").text
            #expect(list.contains("\"name\":\"maps/gamma\"") && !list.contains("delta"))
            #expect(try fetch(server, "/images/maps/gamma.dzi").text == xml)
            let tile = try fetch(server, "/images/maps/gamma_files/10/1_1.jpg")
            #expect(tile.status == 200 && tile.body == PyramidFixture.tileBytes(level: 10, column: 1, row: 1, count: 200))
            #expect(try fetch(server, "/images/maps/gamma_files/10/1_1.jpg").header("X-Cache") == "hit")
            // A tile the folder lacks is absent, not a failing store.
            #expect(try fetch(server, "/images/maps/gamma_files/10/2_1.jpg").status == 404)
            // A tile's entity tag follows its bytes (tiles are objects replaced one by one): two tiles of one size differ.
            let first = try fetch(server, "/images/maps/gamma_files/9/0_0.jpg").header("ETag")
            let second = try fetch(server, "/images/maps/gamma_files/9/1_0.jpg").header("ETag")
            #expect(first != nil && second != nil && first != second)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// Plain HTTP, and HTTPS whose certificate an authority in `AWS_CA_BUNDLE` signed.
    @Test(arguments: [false, true]) func oneSZIOnAnHTTPServerThatAnswersRanges(tls: Bool) async throws {
        let nginx = try await TestNginx(tls: tls)
        defer { nginx.stop() }
        let fixture = try PyramidFixture()
        try fixture.addArchive("alpha", width: 1000, height: 700, tileBytes: 300, fileName: "first.szi")
        try fixture.addArchive("alpha", width: 1000, height: 700, tileBytes: 400, fileName: "second.szi")
        let served = nginx.root.file("alpha.szi")
        try FileManager.default.copyItem(atPath: fixture.root + "/first.szi", toPath: served)
        var configuration = testConfiguration(root: "")
        configuration.objectRoots = [nginx.url + "alpha.szi"]
        if let caFile = nginx.caFile { configuration.environment = ["AWS_CA_BUNDLE": caFile] }
        configuration.rescanInterval = .seconds(3600)
        configuration.fullRescanInterval = .seconds(3600)
        configuration.storeRescanInterval = .seconds(3600)
        let server = try await Server.start(configuration)
        do {
            #expect(try fetch(server, "/api/images").text.contains("\"name\":\"alpha\""))
            let tile = try fetch(server, "/images/alpha_files/10/2_1.jpg")
            #expect(tile.status == 200 && tile.body == PyramidFixture.tileBytes(level: 10, column: 2, row: 1, count: 300))
            // Replaced on the server: its ETag moves, so a read of the old index is refused (If-Match), never mixed.
            try FileManager.default.removeItem(atPath: served)
            try FileManager.default.copyItem(atPath: fixture.root + "/second.szi", toPath: served)
            #expect(try fetch(server, "/images/alpha_files/10/3_1.jpg").status == 503)
            _ = await server.rescan()
            let fresh = try fetch(server, "/images/alpha_files/10/3_1.jpg")
            #expect(fresh.status == 200 && fresh.body == PyramidFixture.tileBytes(level: 10, column: 3, row: 1, count: 400))
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    @Test func wrongCredentialsAreOneLineAtStartAndNeverShown() async throws {
        let (client, gateway, _) = try await bucket()
        defer { Task { try? await client.shutdown() } }
        let secret = "not-the-secret-0123456789"
        do {
            let server = try await Server.start(configuration(gateway, bucket: client.configuration.location.bucket, secret: secret))
            await server.shutdown()
            Issue.record("a server with wrong credentials started")
        } catch let error as ServerError {
            let line = error.description
            #expect(line.hasPrefix("cannot list s3://\(client.configuration.location.bucket)/imgs/") && !line.contains("\n"), "\(line)")
            #expect(line.contains("403") && !line.contains(secret) && !line.contains(gateway.secretKey))
        }
    }

    @Test func withoutAFolderUploadsAreRefused() async throws {
        let (client, gateway, _) = try await bucket()
        defer { Task { try? await client.shutdown() } }
        let server = try await Server.start(configuration(gateway, bucket: client.configuration.location.bucket))
        do {
            let connection = try RawHTTPConnection(port: server.port)
            try connection.send("PUT /api/images/new HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabc")
            let response = try connection.readResponse()
            #expect(response.status == 409 && response.text.contains("uploads need a folder"))
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }
}
