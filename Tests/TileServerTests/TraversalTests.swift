import Foundation
import Testing
import TileServer

/// No request ever reads a file outside ROOT (or outside Public/), whatever bytes it sends.
@Suite struct TraversalTests {
    static let secret = "TOP-SECRET-CONTENTS"

    /// Raw request targets, sent byte for byte.
    static let attempts = [
        "/images/../../secret.txt",
        "/images/%2e%2e/%2e%2e/secret.txt",
        "/images/%2E%2E/secret.txt",
        "/images/..%2fsecret.txt",
        "/images/..%2Fsecret.txt",
        "/images/alpha_files/..%2f..%2f..%2fsecret.txt",
        "/images/alpha_files/9/..%2f..%2f..%2fsecret.jpg",
        "/images/alpha_files/9/../../../secret.jpg",
        "/..%2f..%2fsecret.txt",
        "/../secret.txt",
        "/%2e%2e/secret.txt",
        "/./secret.txt",
        "//secret.txt",
        "/images//secret.txt",
        "/images/%2fetc%2fpasswd.dzi",
        "/images/%00.dzi",
        "/images/alpha%00.dzi",
        "/images/alpha_files/9/0_0.jpg%00.txt",
        "/secret.txt%00.html",
        "/images/%252e%252e/%252e%252e/secret.txt",
        "/images/..\\..\\secret.txt",
        "/images/%5c..%5c..%5csecret.txt",
        "/images/%zz.dzi",
        "/images/%e0%80%ae%e0%80%ae/secret.txt",
        "/images/escape.dzi",
        "/images/escape_files/0/0_0.jpg",
        "/images/alpha_files/9/1_1.jpg",
        "/leak.txt",
        "/.hidden.txt",
        "/api/images/%2e%2e/visible?x=0&y=0&width=1&height=1&zoomScale=1",
        "http://localhost/secret.txt",
        "*",
        "/" + String(repeating: "a/", count: 1500) + "secret.txt",
    ]

    @Test func everyTraversalAttemptIsRefusedWithoutLeaking() async throws {
        let fixture = try PyramidFixture()
        try fixture.write(Self.secret, to: "secret.txt")
        try fixture.write(Self.secret, to: "secret.jpg")
        try fixture.addPyramid("alpha", width: 500, height: 500)
        // A tile that is a symlink out of ROOT, and a whole pyramid whose descriptor and tiles live outside.
        try FileManager.default.removeItem(atPath: fixture.root + "/alpha_files/9/1_1.jpg")
        try fixture.symlink("root/alpha_files/9/1_1.jpg", to: fixture.base + "/secret.jpg")
        try fixture.addPyramid("outside", width: 10, height: 10, in: fixture.base)
        try fixture.symlink("root/escape.dzi", to: fixture.base + "/outside.dzi")
        try fixture.symlink("root/escape_files", to: fixture.base + "/outside_files")
        // The viewer folder with a symlink out of it and a dot-file.
        try fixture.write("<html>", to: "Public/index.html")
        try fixture.write(Self.secret, to: "Public/.hidden.txt")
        try fixture.symlink("Public/leak.txt", to: fixture.base + "/secret.txt")
        var configuration = testConfiguration(root: fixture.root)
        configuration.publicDirectory = fixture.base + "/Public"
        try await withInProcessServer(fixture, configuration) { server in
            for target in Self.attempts {
                let connection = try await server.connect()
                try await connection.send("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n")
                let response = try await connection.readResponse()
                #expect([400, 404].contains(response.status), "\(target) → \(response.status)")
                #expect(!response.text.contains(Self.secret), "\(target) leaked")
            }
            // The server survived all of them.
            #expect(try await fetch(server, "/images/alpha_files/9/0_0.jpg").status == 200)
        }
    }

    @Test func symlinksAreFollowedOnlyWhileTheyStayInsideRoot() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 500, height: 500)
        try fixture.addPyramid("twin", width: 500, height: 500)
        try fixture.addPyramid("outside", width: 500, height: 500, in: fixture.base)
        // A tile and a whole level linked to another pyramid inside ROOT: served.
        try FileManager.default.removeItem(atPath: fixture.root + "/alpha_files/9/0_0.jpg")
        try fixture.symlink("root/alpha_files/9/0_0.jpg", to: fixture.root + "/twin_files/9/1_1.jpg")
        try FileManager.default.removeItem(atPath: fixture.root + "/alpha_files/8")
        try fixture.symlink("root/alpha_files/8", to: fixture.root + "/twin_files/8")
        // The same for twin, but pointing out of ROOT: refused, whether the link is the tile or a folder above it.
        try FileManager.default.removeItem(atPath: fixture.root + "/twin_files/7")
        try fixture.symlink("root/twin_files/7", to: fixture.base + "/outside_files/7")
        try FileManager.default.removeItem(atPath: fixture.root + "/twin_files/9/0_1.jpg")
        try fixture.symlink("root/twin_files/9/0_1.jpg", to: fixture.base + "/outside_files/9/0_1.jpg")
        for budget in [0, 1 << 20] {
            var configuration = testConfiguration(root: fixture.root)
            configuration.cacheBytes = budget
            try await withInProcessServer(fixture, configuration) { server in
                let linkedTile = try await fetch(server, "/images/alpha_files/9/0_0.jpg")
                #expect(linkedTile.status == 200 && linkedTile.body == PyramidFixture.tileBytes(level: 9, column: 1, row: 1, count: 100))
                let linkedLevel = try await fetch(server, "/images/alpha_files/8/0_0.jpg")
                #expect(linkedLevel.status == 200 && linkedLevel.body == PyramidFixture.tileBytes(level: 8, column: 0, row: 0, count: 100))
                #expect(try await fetch(server, "/images/twin_files/7/0_0.jpg").status == 404)
                #expect(try await fetch(server, "/images/twin_files/9/0_1.jpg").status == 404)
                #expect(try await fetch(server, "/images/twin_files/9/0_0.jpg").status == 200)
            }
        }
    }

    @Test func decodedPathsStillReachLegitimateFiles() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("with space", width: 300, height: 300)
        try await withInProcessServer(fixture) { server throws in
            #expect(try await fetch(server, "/images/with%20space.dzi").status == 200)
            #expect(try await fetch(server, "/images/with%20space_files/9/1_1.jpg").status == 200)
            #expect(try await fetch(server, "/images/with%2520space.dzi").status == 404)
        }
    }
}
