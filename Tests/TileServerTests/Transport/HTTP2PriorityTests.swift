import Foundation
import TestSupport
import Testing

@testable import TileServer

/// RFC 9218 priorities on a real server, with python-h2 (`Tests/HTTP2/priority.py`): one connection sends fifteen
/// requests for cached tiles in one write, the last five more urgent; their answers must come first, whether the
/// client says so with the `Priority` field or with RFC 7540 weights, and in request order when it says nothing.
@Suite struct HTTP2PriorityTests {
    @Test(arguments: ["field", "weight", "none"]) func theUrgentTilesOfABurstAreAnsweredFirst(mode: String) async throws {
        let pyramids = try PyramidFixture()
        try pyramids.addPyramid("wide", width: 4096, height: 256)
        var configuration = testConfiguration(root: pyramids.root)
        configuration.cleartextHTTP2 = true
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("HTTP2/priority.py").path
        try await withServer(pyramids, configuration) { server in
            // Cached first, so that every answer is found at once and only the order of answering decides.
            for column in 0..<15 { _ = try await fetch(from: server, "/images/wide_files/12/\(column)_0.jpg") }
            let run = try await blocking {
                try ExternalTool.run("/usr/bin/python3", [script, String(server.port), "/images/wide_files/12/{i}_0.jpg", "15", mode])
            }
            #expect(run.status == 0, "\(run.output)\(run.errors)")
        }
    }
}
