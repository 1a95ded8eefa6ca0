import Archive
import Foundation
import ImageCodecs
import NIOCore
import ObjectStore
import ObjectStoreTestSupport
import Testing

/// `tiler slice IMAGE -o s3://BUCKET/PREFIX/NAME.szi` (or `.tif`) as a user runs it, against a real Ceph RADOS Gateway:
/// the object equals a local slice of the same input, no multipart upload is left behind, the staging folder in TMPDIR
/// is removed; wrong keys, a folder key and an interrupt each end with one line and leave no object.
@Suite struct SliceToStoreCommandTests {
    /// A new bucket, the variables that reach it (with TMPDIR a fixture folder), and that folder.
    private func bucket(_ fixtures: Fixtures) async throws -> (client: S3Client, environment: [String: String], temporary: String) {
        let gateway = try TestGateway.shared()
        let client = try await gateway.makeBucket("slice")
        let temporary = fixtures.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        let environment = [
            "AWS_ACCESS_KEY_ID": gateway.accessKey, "AWS_SECRET_ACCESS_KEY": gateway.secretKey, "AWS_ENDPOINT_URL": gateway.endpoint,
            "AWS_REGION": gateway.region, "TMPDIR": temporary,
        ]
        return (client, environment, temporary)
    }

    /// The object at `key`, written to `path`.
    private func download(_ client: S3Client, _ key: String, to path: String) async throws {
        let body = try await client.get(key)
        try Data(body.readableBytesView).write(to: URL(fileURLWithPath: path))
    }

    /// Each entry's name and bytes, in archive order.
    private func entries(_ path: String) throws -> [(name: String, bytes: [UInt8])] {
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        defer { close(fd) }
        let directory = try ZIPDirectory(fd: fd, label: path)
        return try (0..<directory.count).map { index in
            let bytes = try ZIPDirectory.read(fd, at: directory.dataOffsets[index], count: Int(directory.sizes[index]), label: path)
            return (String(decoding: directory.name(index), as: UTF8.self), bytes)
        }
    }

    @Test func slicesIntoABucketAsIntoAFile() async throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (client, environment, temporary) = try await bucket(fixtures)
        defer { Task { try? await client.shutdown() } }
        let input = try fixtures.image("pic.jpg", width: 900, height: 700, format: .jpeg())
        let destination = "s3://\(client.configuration.location.bucket)/imgs/pic.szi"
        let result = try TilerProcess.run(
            ["slice", input, "-o", destination, "--tile-size", "128", "--json"], environment: environment, timeout: 120)
        #expect(result.status == 0 && !result.timedOut, "\(result.stderr)")
        #expect(result.stdout.contains("\"path\":\"\(destination)\""), "\(result.stdout)")
        let local = fixtures.path("local/pic.szi")
        #expect(try TilerProcess.run(["slice", input, "-o", local, "--tile-size", "128", "--quiet"]).status == 0)
        let published = fixtures.path("published.szi")
        try await download(client, "imgs/pic.szi", to: published)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: published)[.size] as? Int)
        #expect(result.stdout.contains("\"fileBytes\":\(size)"), "\(result.stdout)")
        let (ours, theirs) = (try entries(published), try entries(local))
        #expect(ours.count == theirs.count && ours.count > 10)
        // Entry for entry (the tiles' order in the file follows the encoding threads, so it may differ).
        let reference = Dictionary(theirs.map { ($0.name, $0.bytes) }) { first, _ in first }
        let differing = ours.filter { reference[$0.name] != $0.bytes }.map(\.name)
        #expect(reference.count == theirs.count && differing.isEmpty, "\(differing)")
        let (archive, localArchive) = (try SZIArchive(path: published), try SZIArchive(path: local))
        #expect(archive.descriptorBytes == localArchive.descriptorBytes && archive.tileCount == localArchive.tileCount)
        #expect(try await client.pendingUploads().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
    }

    @Test func slicesATIFFIntoABucket() async throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (client, environment, temporary) = try await bucket(fixtures)
        defer { Task { try? await client.shutdown() } }
        let input = try fixtures.image("pic.jpg", width: 900, height: 700, format: .jpeg())
        let destination = "s3://\(client.configuration.location.bucket)/a/b/pic.tif"
        let result = try TilerProcess.run(["slice", input, "-o", destination], environment: environment, timeout: 120)
        #expect(result.status == 0 && !result.timedOut, "\(result.stderr)")
        #expect(result.stderr.contains("wrote \(destination): 900 × 700"), "\(result.stderr)")
        let local = fixtures.path("local/pic.tif")
        #expect(try TilerProcess.run(["slice", input, "-o", local, "--quiet"]).status == 0)
        let published = fixtures.path("published/pic.tif")
        try FileManager.default.createDirectory(atPath: fixtures.path("published"), withIntermediateDirectories: true)
        try await download(client, "a/b/pic.tif", to: published)
        let (ours, theirs) = (try Data(contentsOf: URL(fileURLWithPath: published)), try Data(contentsOf: URL(fileURLWithPath: local)))
        #expect(ours.count == theirs.count && ours.starts(with: [0x49, 0x49, 0x2A, 0x00]))
        // The same pyramid: `tiler info` reads both alike (the bytes differ only in the TIFF's DateTime).
        let info = try TilerProcess.run(["info", published]).stdout.replacingOccurrences(of: published, with: "FILE")
        let reference = try TilerProcess.run(["info", local]).stdout.replacingOccurrences(of: local, with: "FILE")
        #expect(info == reference && info.contains("3 levels"), "\(info)")
        #expect(try await client.pendingUploads().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
    }

    @Test func wrongKeysFailBeforeSlicing() async throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (client, environment, temporary) = try await bucket(fixtures)
        defer { Task { try? await client.shutdown() } }
        // Not an image: a slice would fail on it, so a 403 shows that the bucket was asked first.
        let input = try fixtures.file("pic.jpg", bytes: Array("not an image".utf8))
        let secret = "wrong-secret-0123456789abcdef"
        var wrong = environment
        wrong["AWS_SECRET_ACCESS_KEY"] = secret
        let destination = "s3://\(client.configuration.location.bucket)/imgs/pic.szi"
        let result = try TilerProcess.run(["slice", input, "-o", destination], environment: wrong, timeout: 60)
        #expect(result.status != 0 && !result.timedOut)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(destination) && lines[0].contains("403"), "\(result.stderr)")
        #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret))
        #expect(try await client.list(prefix: "", pageSize: 10).isEmpty)
        #expect(try await client.pendingUploads().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
    }

    @Test(arguments: ["imgs/", "imgs/pic.dzi", "pic"])
    func aFolderKeyIsRefused(key: String) async throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (client, environment, _) = try await bucket(fixtures)
        defer { Task { try? await client.shutdown() } }
        let input = try fixtures.image("pic.jpg", width: 300, height: 200, format: .jpeg())
        let destination = "s3://\(client.configuration.location.bucket)/\(key)"
        let result = try TilerProcess.run(["slice", input, "-o", destination], environment: environment, timeout: 60)
        #expect(result.status != 0 && !result.timedOut)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains(destination) && lines[0].contains("folder pyramid"), "\(result.stderr)")
        #expect(try await client.list(prefix: "", pageSize: 10).isEmpty)
    }

    @Test func anInterruptedUploadLeavesNothing() async throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (client, environment, temporary) = try await bucket(fixtures)
        defer { Task { try? await client.shutdown() } }
        // The slice reaches the store through a proxy that goes silent once the upload is begun: its parts then wait
        // for an answer that never comes, and the interrupt lands mid-upload however fast the machine is.
        let proxy = try await FaultProxy(upstream: try #require(environment["AWS_ENDPOINT_URL"]))
        defer { Task { await proxy.close() } }
        let input = try fixtures.image("big.jpg", width: 1000, height: 1000, format: .jpeg())
        let destination = "s3://\(client.configuration.location.bucket)/imgs/big.szi"
        // The bucket check and the request that begins the upload pass; its first part, and all after, wait.
        let (process, err) = try await startHeld(["slice", input, "-o", destination, "--quiet"], environment: environment, proxy: proxy)
        defer { if process.isRunning { process.terminate() } }
        // The upload exists at the store (asked directly, not through the proxy), and its first part is held.
        #expect(await eventually { (try? await client.pendingUploads().isEmpty) == false })
        #expect(await eventually { proxy.requests.contains { $0.contains("partNumber=") } }, "\(proxy.requests)")
        let (status, stderr) = try await interrupt(process, err, proxy: proxy)
        #expect(status == 130, "\(stderr)")
        let lines = stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("SIGTERM") && lines[0].contains(destination), "\(stderr)")
        try await expectNothingLeft(client, temporary: temporary)
    }

    @Test(arguments: ["szi", "tif"])
    func aLargeSliceIsSentInPartsThatEqualALocalSlice(container: String) async throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (client, environment, temporary) = try await bucket(fixtures)
        defer { Task { try? await client.shutdown() } }
        // About 47 MB of tiles at quality 100: body parts of 16 MiB while it is built, the last (and a TIFF's front) at
        // the end.
        let input = try fixtures.noise("noise.jpg", width: 5120, height: 3840)
        let destination = "s3://\(client.configuration.location.bucket)/big/noise.\(container)"
        let result = try TilerProcess.run(
            ["slice", input, "-o", destination, "--quality", "100", "--quiet", "--json"], environment: environment, timeout: 300)
        #expect(result.status == 0 && !result.timedOut, "\(result.stderr)")
        let local = fixtures.path("local/noise.\(container)")
        #expect(try TilerProcess.run(["slice", input, "-o", local, "--quality", "100", "--quiet"]).status == 0)
        let published = fixtures.path("published.\(container)")
        try await download(client, "big/noise.\(container)", to: published)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: published)[.size] as? Int)
        #expect(size > 36 << 20 && result.stdout.contains("\"fileBytes\":\(size)"), "\(size) \(result.stdout)")
        // Parts went while the slice was built: an SZI's first 16 MiB are final a third of the way through it. (A TIFF's
        // body is its finest level after 16 MiB held back for its front: it may end as the slice does.)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        let sent = try #require(report["uploadedWhileSlicingBytes"] as? Int, "\(result.stdout)")
        #expect(container == "tif" || sent >= 16 << 20, "\(sent) bytes sent while slicing")
        if container == "szi" {
            let (ours, theirs) = (try entries(published), try entries(local))
            let reference = Dictionary(theirs.map { ($0.name, $0.bytes) }) { first, _ in first }
            #expect(ours.count == theirs.count && ours.allSatisfy { reference[$0.name] == $0.bytes })
        } else {
            // Tiles are stored in the order the threads finished them: the same pyramid, read tile for tile.
            let info = try TilerProcess.run(["info", published]).stdout.replacingOccurrences(of: published, with: "FILE")
            let reference = try TilerProcess.run(["info", local]).stdout.replacingOccurrences(of: local, with: "FILE")
            #expect(info == reference, "\(info)")
            let (ours, theirs) = (try TIFFPyramid(path: published), try TIFFPyramid(path: local))
            for level in ours.levels.indices {
                let grid = ours.levels[level]
                for row in 0..<grid.rows {
                    for column in 0..<grid.columns {
                        let tile = try ours.jpegTile(level: level, column: column, row: row)
                        #expect(tile == (try theirs.jpegTile(level: level, column: column, row: row)), "tile \(level)/\(column)_\(row)")
                    }
                }
            }
        }
        #expect(try await client.pendingUploads().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
    }

    /// `tiler ARGUMENTS` started with `environment`, the store reached through `proxy`, which holds every part of the
    /// upload (silent from the first); the process and its standard error.
    private func startHeld(_ arguments: [String], environment: [String: String], proxy: FaultProxy) async throws -> (Process, Pipe) {
        var throughProxy = environment
        throughProxy["AWS_ENDPOINT_URL"] = proxy.origin
        let process = Process()
        process.executableURL = TilerProcess.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILER_") }.merging(throughProxy) { _, new in new }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try await proxy.set(.silentFrom("partNumber="))
        try process.run()
        return (process, err)
    }

    /// SIGTERM to `process`, its abort then let through `proxy`: its exit status and standard error.
    private func interrupt(_ process: Process, _ err: Pipe, proxy: FaultProxy) async throws -> (Int32, String) {
        kill(process.processIdentifier, SIGTERM)
        try await proxy.set(.none)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    /// Nothing left of an aborted slice: no object, no upload, no staging folder.
    private func expectNothingLeft(_ client: S3Client, temporary: String) async throws {
        #expect(try await client.list(prefix: "", pageSize: 10).isEmpty)
        #expect(try await client.pendingUploads().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty)
    }

    /// Polls `condition` every 20 ms for at most 30 s; whether it held.
    private func eventually(_ condition: () async -> Bool) async -> Bool {
        for _ in 0..<1500 {
            if await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return false
    }
}
