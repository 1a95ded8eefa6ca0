import Foundation
import TestSupport
import Testing

@testable import TileServer

/// HTTP/2's known attacks against a real server, made by `Tests/HTTP2/abuse.py` with the python-h2 library (Rapid
/// Reset, CONTINUATION, PING and SETTINGS floods, an HPACK bomb, a stream window held at zero): the attacker's
/// connection is closed, or its stream given up after the send timeout, and a well-behaved client is served at once
/// after each.
@Suite struct HTTP2AbuseTests {
    @Test func eachAttackIsContained() async throws {
        let pyramids = try PyramidFixture()
        try pyramids.addPyramid("big", width: 2048, height: 1024, tileBytes: 200_000)
        var configuration = testConfiguration(root: pyramids.root)
        configuration.cleartextHTTP2 = true
        configuration.sendTimeout = .seconds(2)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("HTTP2/abuse.py").path
        try await withServer(pyramids, configuration) { server in
            let run = try await blocking {
                try ExternalTool.run("/usr/bin/python3", [script, String(server.port), "/images/big_files/11/3_1.jpg", "2"])
            }
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            #expect(run.output.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 12, "\(run.output)")
            #expect(server.isListening)
        }
    }
}
