import Foundation
import TestSupport
import Testing

@testable import TileServer

/// A client that closes its sending side after its answer (`Tests/HTTP2/half_close.py`, python-h2): the server ends
/// the connection within seconds, not at the idle timeout — until then it held everything the connection had.
@Suite struct HTTP2HalfCloseTests {
    @Test func aConnectionWhoseClientClosedItsSideIsEnded() async throws {
        let pyramids = try PyramidFixture()
        try pyramids.addPyramid("small", width: 512, height: 512)
        var configuration = testConfiguration(root: pyramids.root)
        configuration.cleartextHTTP2 = true
        configuration.idleTimeout = .seconds(120)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("HTTP2/half_close.py").path
        try await withServer(pyramids, configuration) { server in
            let arguments = [script, String(server.port), "/images/small_files/9/0_0.jpg", "10"]
            let run = try await blocking { try ExternalTool.run("/usr/bin/python3", arguments) }
            #expect(run.status == 0, "\(run.output)\(run.errors)")
        }
    }
}
