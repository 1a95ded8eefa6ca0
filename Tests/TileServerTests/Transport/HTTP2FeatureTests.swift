import Foundation
import TestSupport
import Testing

@testable import TileServer

/// The rest of the service over HTTP/2 (cleartext, prior knowledge: the stream layer is the one TLS negotiates), with
/// the real `curl`: an upload's body under flow control, its job's Server-Sent Events to the end, a private image's
/// token refusal and signed tiles, IIIF.
@Suite(.serialized) struct HTTP2FeatureTests {
    /// `curl --http2-prior-knowledge` with `arguments`: its output (`-w` last) and whether it exited 0.
    private static func curl(_ arguments: [String]) throws -> (output: String, ok: Bool) {
        let run = try ExternalTool.run("/usr/bin/curl", ["-s", "--http2-prior-knowledge", "--max-time", "60"] + arguments)
        return (run.output, run.status == 0)
    }

    @Test func uploadsEventsPrivateImagesAndIIIF() async throws {
        let fixture = try UploadFixture()
        var configuration = fixture.secured.configuration
        configuration.cleartextHTTP2 = true
        let token = try fixture.writeToken()
        let image = try UploadFixture.png(width: 1400, height: 900)
        let upload = FileManager.default.temporaryDirectory.appendingPathComponent("h2-upload-\(UUID().uuidString).png").path
        try Data(image).write(to: URL(fileURLWithPath: upload))
        defer { try? FileManager.default.removeItem(atPath: upload) }
        let read = try fixture.secured.token("*")
        try await withServer(fixture.secured.pyramids, configuration) { server in
            let base = "http://127.0.0.1:\(server.port)"
            // The upload, a body of a few MB in DATA frames: 202 with the job.
            let put = try await blocking {
                try Self.curl([
                    "-T", upload, "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: image/png", "-w", "\n%{http_code} %{http_version}",
                    "\(base)/api/images/trips/h2",
                ])
            }
            #expect(put.ok && put.output.hasSuffix("202 2"), "\(put.output)")
            let job = try #require(try JSONSerialization.jsonObject(with: Data(put.output.split(separator: "\n")[0].utf8)) as? [String: Any])
            let id = try #require(job["id"] as? String)
            #expect(job["bytesReceived"] as? Int == image.count)
            // Its events, streamed until the job is over: the stream ends cleanly.
            let events = try await blocking {
                try Self.curl(["-N", "-H", "Authorization: Bearer \(token)", "\(base)/api/jobs/\(id)/events"])
            }
            #expect(events.ok, "the event stream ended cleanly: \(events.output.suffix(300))")
            #expect(events.output.contains("event:") && events.output.contains("\"state\":\"done\""), "\(events.output.suffix(300))")
            // The private image: refused without a token, served with one; its tiles signed.
            let refused = try await blocking { try Self.curl(["-o", "/dev/null", "-w", "%{http_code}", "\(base)/images/trips/h2.dzi"]) }
            #expect(refused.output == "401")
            let descriptor = try await blocking {
                try Self.curl(["-D", "-", "-o", "/dev/null", "-H", "Authorization: Bearer \(read)", "\(base)/images/trips/h2.dzi"])
            }
            #expect(descriptor.output.hasPrefix("HTTP/2 200"), "\(descriptor.output)")
            let query = try #require(
                descriptor.output.split(separator: "\r\n").first { $0.lowercased().hasPrefix("tiler-tile-query: ") }?.dropFirst(18))
            let list = try await blocking { try Self.curl(["-H", "Authorization: Bearer \(read)", "\(base)/api/images"]) }
            let entry = try #require(
                (try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [[String: Any]])?.first { $0["name"] as? String == "trips/h2" })
            let version = try #require(entry["version"] as? String)
            let tile = try await blocking {
                try Self.curl([
                    "-o", "/dev/null", "-w", "%{http_code} %{content_type}", "\(base)/images/trips/h2@\(version)_files/8/0_0.jpg?\(query)",
                ])
            }
            #expect(tile.output == "200 image/jpeg", "\(tile.output)")
            // IIIF: info.json and a region, over the same protocol.
            let info = try await blocking {
                try Self.curl(["-H", "Authorization: Bearer \(read)", "\(base)/iiif/3/trips%2Fh2/info.json"])
            }
            #expect(info.output.contains("\"width\":1400") || info.output.contains("\"width\": 1400"), "\(info.output.prefix(300))")
            let region = try await blocking {
                try Self.curl([
                    "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "-H", "Authorization: Bearer \(read)",
                    "\(base)/iiif/3/trips%2Fh2/0,0,512,512/256,/0/default.jpg",
                ])
            }
            #expect(region.output.hasPrefix("200 ") && Int(region.output.split(separator: " ")[1]) ?? 0 > 1000, "\(region.output)")
        }
    }
}
