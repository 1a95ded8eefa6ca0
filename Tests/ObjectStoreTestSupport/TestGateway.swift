import Foundation
import ObjectStore

#if canImport(Glibc)
    import Glibc
#endif

/// The real S3 the tests talk to: a Ceph RADOS Gateway (Tests/Support/s3/ceph-rgw.sh). The one named by `S3_ENDPOINT`,
/// `S3_ACCESS_KEY`, `S3_SECRET_KEY` and `S3_REGION` when they are set; otherwise one started by the script on first
/// use, once per test process, and stopped when the process exits. Shared by the test targets that need a real S3
/// (ObjectStoreTests, ObjectSourcesTests).
public struct TestGateway: Sendable {
    /// `http://127.0.0.1:PORT`.
    public let endpoint: String
    /// The test user's access key id.
    public let accessKey: String
    /// The test user's secret key.
    public let secretKey: String
    /// The region requests are signed for.
    public let region: String

    /// The gateway, started on first use; a failure to start fails every test that needs it.
    public static func shared() throws -> TestGateway {
        try started.get()
    }

    private static let started: Result<TestGateway, GatewayError> = {
        let environment = ProcessInfo.processInfo.environment
        if let endpoint = environment["S3_ENDPOINT"], let key = environment["S3_ACCESS_KEY"], let secret = environment["S3_SECRET_KEY"] {
            return .success(TestGateway(endpoint: endpoint, accessKey: key, secretKey: secret, region: environment["S3_REGION"] ?? "us-east-1"))
        }
        return startOwn()
    }()

    /// The folder of a gateway this process started (for the exit handler).
    private static let ownFolder = "\(NSTemporaryDirectory())/tiler-objectstore-gw-\(getpid())"

    private static func startOwn() -> Result<TestGateway, GatewayError> {
        let status = runScript(["start", ownFolder])
        guard status == 0 else {
            let log = (try? String(contentsOfFile: ownFolder + ".log", encoding: .utf8)) ?? ""
            return .failure(GatewayError(message: "ceph-rgw.sh start failed (\(status)): \(log.suffix(2000))"))
        }
        atexit {
            if TestGateway.runScript(["stop", TestGateway.ownFolder]) == 0 { unlink(TestGateway.ownFolder + ".log") }
        }
        guard let text = try? String(contentsOfFile: ownFolder + "/env", encoding: .utf8) else {
            return .failure(GatewayError(message: "no \(ownFolder)/env"))
        }
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        guard let endpoint = values["S3_ENDPOINT"], let key = values["S3_ACCESS_KEY"], let secret = values["S3_SECRET_KEY"] else {
            return .failure(GatewayError(message: "\(ownFolder)/env lacks S3_ENDPOINT, S3_ACCESS_KEY or S3_SECRET_KEY"))
        }
        return .success(TestGateway(endpoint: endpoint, accessKey: key, secretKey: secret, region: values["S3_REGION"] ?? "us-east-1"))
    }

    /// Runs ceph-rgw.sh with `arguments`, its output in `ownFolder.log`, and gives its exit status (-1 if it could not
    /// start). posix_spawn and waitpid rather than Foundation's Process, whose waitUntilExit was seen never to return
    /// once the script had left the gateway's daemons running.
    private static func runScript(_ arguments: [String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, ownFolder + ".log", O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = (["/bin/bash", script] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid = pid_t()
        guard posix_spawn(&pid, "/bin/bash", &actions, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : -1
    }

    /// Tests/Support/s3/ceph-rgw.sh, found from this file's place in the package.
    static let script: String = {
        let here = URL(fileURLWithPath: #filePath)
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent("Tests/Support/s3/ceph-rgw.sh").path
    }()

    /// A client of a new bucket (named after `label`, made unique) on the gateway, created before it is returned.
    public func makeBucket(_ label: String, prefix: String = "", secret: String? = nil, options: ObjectStoreOptions = ObjectStoreOptions())
        async throws -> S3Client
    {
        let bucket = "t-\(label.lowercased())-\(UInt32.random(in: 0...UInt32.max))"
        let owner = try client(bucket: bucket, prefix: "", secret: nil, options: options)
        try await owner.createBucket()
        try await owner.shutdown()
        return try client(bucket: bucket, prefix: prefix, secret: secret, options: options)
    }

    /// A client of `bucket` with this gateway's keys (or another `secret`).
    public func client(bucket: String, prefix: String, secret: String?, options: ObjectStoreOptions = ObjectStoreOptions()) throws -> S3Client {
        let credentials = S3Credentials(accessKeyID: accessKey, secretAccessKey: secret ?? secretKey, source: "test gateway")
        let configuration = try S3Configuration(
            location: S3Location(bucket: bucket, prefix: prefix), endpoint: endpoint, region: region, credentials: credentials)
        return S3Client(configuration: configuration, options: options)
    }
}

/// Why the test gateway is not there.
public struct GatewayError: Error, CustomStringConvertible {
    /// What failed, with the end of the script's log.
    public let message: String

    /// An error saying `message`.
    public init(message: String) {
        self.message = message
    }

    public var description: String { message }
}
