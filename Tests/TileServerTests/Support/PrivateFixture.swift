import Foundation
import TileServer

/// A ROOT with private and public pyramids and an access policy beside it (`base/policy.json`):
/// default private, `pub/` public; keys `k1` (a file, the signing key) and `k2` (the variable `TILER_TEST_KEY_K2`).
///
/// Images: `a/one`, `a/two`, `ab`, `b/x` (private), `pub/open` (public), and two symlinked names whose descriptor and
/// tiles are `b/x`'s: `a/link` (under `a/`) and `pub/link` (under the public prefix).
struct PrivateFixture {
    let pyramids: PyramidFixture
    let policyPath: String
    let policy: AccessPolicy

    static let keyOne = String(repeating: "k1-secret-", count: 4)
    static let keyTwo = String(repeating: "k2-secret-", count: 4)
    static let keyTwoVariable = "TILER_TEST_KEY_K2"

    init(window: Int = 3600) throws {
        pyramids = try PyramidFixture()
        let root = pyramids.root
        for folder in ["a", "b", "pub"] {
            try FileManager.default.createDirectory(atPath: "\(root)/\(folder)", withIntermediateDirectories: true)
        }
        for name in ["a/one", "a/two", "ab", "b/x", "pub/open"] {
            try pyramids.addPyramid(name, width: 600, height: 400, tileBytes: 64)
        }
        try pyramids.symlink("root/a/link.dzi", to: "\(root)/b/x.dzi")
        try pyramids.symlink("root/a/link_files", to: "\(root)/b/x_files")
        try pyramids.symlink("root/pub/link.dzi", to: "\(root)/b/x.dzi")
        try pyramids.symlink("root/pub/link_files", to: "\(root)/b/x_files")
        // A public descriptor of its own whose tiles folder is a private image's.
        try pyramids.write(try String(contentsOfFile: "\(root)/b/x.dzi", encoding: .utf8), to: "root/pub/fake.dzi")
        try pyramids.symlink("root/pub/fake_files", to: "\(root)/b/x_files")
        try pyramids.write(Self.keyOne + "\n", to: "keys/k1.key")
        setenv(Self.keyTwoVariable, Self.keyTwo, 1)
        try pyramids.write(
            """
            {"default": "private", "images": {"pub/": "public"},
             "keys": [{"id": "k1", "file": "keys/k1.key"}, {"id": "k2", "env": "\(Self.keyTwoVariable)"}], "window": \(window)}
            """, to: "policy.json")
        policyPath = pyramids.base + "/policy.json"
        policy = try AccessPolicy(file: policyPath, environment: ProcessInfo.processInfo.environment)
    }

    /// The test configuration with this policy.
    var configuration: ServerConfiguration {
        var configuration = testConfiguration(root: pyramids.root)
        configuration.accessFile = policyPath
        return configuration
    }

    /// A token for `images` lasting `seconds` (negative: already expired).
    func token(_ images: String, seconds: Int = 600, scope: AccessToken.Scope = .read, key: String? = nil) throws -> String {
        try policy.mint(images: images, expires: Int(Date().timeIntervalSince1970) + seconds, scope: scope, keyID: key)
    }
}
