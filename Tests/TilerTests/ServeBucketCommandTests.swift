import Foundation
import NIOCore
import ObjectStore
import ObjectStoreTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `tiler serve s3://BUCKET/PREFIX` as a user runs it, against a real Ceph RADOS Gateway: keys and endpoint from the
/// AWS variables, the banner naming the root, the bucket's SZIs served; wrong keys one line and a failing exit, the
/// secret never in it.
@Suite struct ServeBucketCommandTests {
    /// A bucket holding `imgs/pic.szi`, sliced by `tiler slice`; and the variables that reach it.
    private func bucket(_ fixtures: Fixtures) async throws -> (client: S3Client, environment: [String: String]) {
        let gateway = try TestGateway.shared()
        let client = try await gateway.makeBucket("cli")
        let input = try fixtures.image("pic.jpg", width: 600, height: 400, format: .jpeg())
        let archive = fixtures.path("pic.szi")
        #expect(try TilerProcess.run(["slice", input, "-o", archive, "--quiet"]).status == 0)
        _ = try await client.put("imgs/pic.szi", body: ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: archive))))
        let environment = [
            "AWS_ACCESS_KEY_ID": gateway.accessKey, "AWS_SECRET_ACCESS_KEY": gateway.secretKey, "AWS_ENDPOINT_URL": gateway.endpoint,
            "AWS_REGION": gateway.region,
        ]
        return (client, environment)
    }

    @Test func servesTheSZIsOfABucket() async throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (client, environment) = try await bucket(fixtures)
        defer { Task { try? await client.shutdown() } }
        let root = "s3://\(client.configuration.location.bucket)/imgs"
        let process = Process()
        process.executableURL = TilerProcess.executable
        process.arguments = ["serve", root, "--port", "0"]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TILER_") }.merging(environment) { _, new in new }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var banner = ""
        while !banner.contains("\n"), process.isRunning {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            banner += String(decoding: chunk, as: UTF8.self)
        }
        #expect(banner.hasPrefix("Tiler is serving \(root) at http://127.0.0.1:"), "\(banner)")
        let url = try #require(banner.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("http://") }.map(String.init))
        let (list, _) = try await URLSession.shared.data(from: try #require(URL(string: url + "api/images")))
        #expect(String(decoding: list, as: UTF8.self).contains("\"name\":\"pic\""))
        let (tile, response) = try await URLSession.shared.data(from: try #require(URL(string: url + "images/pic_files/10/0_0.jpg")))
        #expect((response as? HTTPURLResponse)?.statusCode == 200 && tile.starts(with: [0xFF, 0xD8]))
        // A region rendered from the tiles: read on a render thread, which waits for the store's answer.
        let regionURL = try #require(URL(string: url + "iiif/3/pic/0,0,400,300/200,/0/default.jpg"))
        let (region, rendered) = try await URLSession.shared.data(from: regionURL)
        #expect((rendered as? HTTPURLResponse)?.statusCode == 200 && region.starts(with: [0xFF, 0xD8]))
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func wrongKeysAreOneLineAndAFailingExit() async throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (client, environment) = try await bucket(fixtures)
        defer { Task { try? await client.shutdown() } }
        let secret = "wrong-secret-0123456789abcdef"
        var wrong = environment
        wrong["AWS_SECRET_ACCESS_KEY"] = secret
        let root = "s3://\(client.configuration.location.bucket)/imgs"
        let result = try TilerProcess.run(["serve", root, "--port", "0"], environment: wrong, timeout: 60)
        #expect(result.status != 0 && !result.timedOut)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("cannot list \(root)/") && lines[0].contains("403"), "\(result.stderr)")
        #expect(!result.stderr.contains(secret) && !result.stdout.contains(secret))
    }
}
