import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `tiler token`, `tiler serve --access`, and the Python minting example of docs/private-images.md, run as a user would.
@Suite struct PrivateImagesCommandTests {
    static let key = "command-test-signing-key-0123456789"

    /// A ROOT with one sliced image `slides/pic`, and a policy making `slides/` private with key k1 (a file).
    static func setUp(_ fixtures: Fixtures) throws -> (root: String, policy: String) {
        let input = try fixtures.image("pic.jpg", width: 300, height: 200, format: .jpeg())
        let root = fixtures.path("root")
        #expect(try TilerProcess.run(["slice", input, "-o", root + "/slides", "--quiet"]).status == 0)
        _ = try fixtures.file("k1.key", bytes: Array((key + "\n").utf8))
        _ = try fixtures.file(
            "policy.json", bytes: Array(#"{"images": {"slides/": "private"}, "keys": [{"id": "k1", "file": "k1.key"}]}"#.utf8))
        return (root, fixtures.path("policy.json"))
    }

    /// The Python block after `<!-- mint-token.py: tested -->` in docs/private-images.md.
    static func mintingExample() throws -> String {
        let page = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs").appendingPathComponent("private-images.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        let marker = try #require(text.range(of: "<!-- mint-token.py: tested -->\n```python\n"))
        let end = try #require(text.range(of: "\n```", range: marker.upperBound..<text.endIndex))
        return String(text[marker.upperBound..<end.lowerBound])
    }

    @Test func tokensFromTilerAndFromTheReadmesPythonOpenAPrivateImage() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (root, policy) = try Self.setUp(fixtures)
        let minted = try TilerProcess.run(["token", "--access", policy, "--images", "slides/*", "--expires", "2h"])
        #expect(minted.status == 0, "\(minted.stderr)")
        let tilerToken = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(tilerToken.hasPrefix("tiler1.k1.") && !minted.stdout.contains(Self.key))
        let script = try fixtures.file("mint.py", bytes: Array(try Self.mintingExample().utf8))
        #expect(try Self.mintingExample().split(separator: "\n").count <= 25, "about 20 lines")
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = [script, "k1", "slides/pic"]
        python.environment = ["TILER_KEY": Self.key + "\n"]
        let out = Pipe()
        python.standardOutput = out
        try python.run()
        let pythonToken = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        python.waitUntilExit()
        #expect(python.terminationStatus == 0 && pythonToken.hasPrefix("tiler1.k1."))

        let (server, _, url) = try ServeCommandTests().start(["serve", root, "--port", "0", "--access", policy])
        defer { if server.isRunning { server.terminate() } }
        #expect(try Self.status(url + "images/slides/pic.dzi", token: nil) == 401)
        #expect(try Self.status(url + "images/slides/pic.dzi", token: tilerToken) == 200)
        #expect(try Self.status(url + "images/slides/pic.dzi", token: pythonToken) == 200)
        // The Python token names slides/pic only.
        #expect(try Self.status(url + "images/slides/other.dzi", token: pythonToken) == 403)
    }

    @Test func badOptionsAndPoliciesAreOneLineErrors() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let (root, policy) = try Self.setUp(fixtures)
        let cases: [([String], String)] = [
            (["token", "--access", policy, "--images", "slides/*", "--expires", "5x"], "--expires"),
            (["token", "--access", policy, "--images", "a*b", "--expires", "1h"], "--images"),
            (["token", "--access", policy, "--images", "a", "--expires", "1h", "--scope", "admin"], "--scope"),
            (["token", "--access", policy, "--images", "a", "--expires", "1h", "--key", "k9"], "no key k9"),
            (["token", "--access", fixtures.path("missing.json"), "--images", "a", "--expires", "1h"], "cannot read the access policy"),
            (["serve", root, "--port", "0", "--access", fixtures.path("missing.json")], "cannot read the access policy"),
        ]
        for (arguments, expected) in cases {
            let result = try TilerProcess.run(arguments)
            #expect(result.status != 0 && !result.signalled, "\(arguments)")
            #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains(Self.key))
        }
        // TILER_ACCESS names the policy too.
        let fromEnvironment = try TilerProcess.run(["token", "--images", "slides/*", "--expires", "10m"], environment: ["TILER_ACCESS": policy])
        #expect(fromEnvironment.status == 0 && fromEnvironment.stdout.hasPrefix("tiler1.k1."), "\(fromEnvironment.stderr)")
        // During a rotation a back end that mints holds the signing key only: the others' variables may be unset.
        _ = try fixtures.file(
            "rotating.json",
            bytes: Array(#"{"keys": [{"id": "k0", "env": "TILER_TEST_RETIRED_KEY"}, {"id": "k1", "file": "k1.key"}], "sign": "k1"}"#.utf8))
        let rotating = try TilerProcess.run(["token", "--access", fixtures.path("rotating.json"), "--images", "slides/*", "--expires", "10m"])
        #expect(rotating.status == 0 && rotating.stdout.hasPrefix("tiler1.k1."), "\(rotating.stderr)")
    }

    static func status(_ url: String, token: String?) throws -> Int {
        var request = URLRequest(url: try #require(URL(string: url)))
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let result = Locked(0)
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { _, response, _ in
            result.value = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + 30)
        return result.value
    }
}
