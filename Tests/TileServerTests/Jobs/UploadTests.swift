import Foundation
import Testing

@testable import SliceJobs
@testable import TileServer

/// `PUT /api/images/NAME` against a real server on 127.0.0.1: an upload is sliced and published; every refusal of
/// the drop contract comes with its status and stores nothing; a client that goes away mid-body, a damaged image and
/// two uploads of one name at once each end in a clear job error with the catalog untouched.
@Suite(.serialized) struct UploadTests {
    @Test func anUploadIsSlicedAndPublished() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        let image = try UploadFixture.png(width: 700, height: 500)
        try await withServer(fixture.secured.pyramids, fixture.secured.configuration) { server in
            let response = try await blocking { try UploadFixture.put(server, "trips/alps", body: image, token: token) }
            #expect(response.status == 202, "\(response.text)")
            let job = try #require(try response.json() as? [String: Any])
            let id = try #require(job["id"] as? String)
            #expect(id.utf8.count >= 22, "at least 128 random bits")
            #expect(response.header("Location") == "/api/jobs/\(id)")
            #expect(job["name"] as? String == "trips/alps" && job["source"] as? String == "upload")
            #expect(job["bytesReceived"] as? Int == image.count && job["bytesExpected"] as? Int == image.count)
            let end = try await UploadFixture.waitForEnd(server, id)
            #expect(end["state"] as? String == "done", "\(end)")
            #expect(end["tiles"] as? Int ?? 0 > 0 && end["tilesWritten"] as? Int == end["tiles"] as? Int)
            #expect(end["rows"] as? Int == 500 && end["fraction"] as? Double == 1)
            let dzi = try #require(end["dzi"] as? String)
            #expect(dzi.hasPrefix("/images/trips/alps@") && dzi.hasSuffix(".dzi"))
            let read = try fixture.secured.token("trips/*")
            #expect(try fetch(server, dzi + "?token=\(read)").status == 200)
            let list = try fetch(server, "/api/jobs", headers: ["Authorization: Bearer \(token)"])
            #expect(list.status == 200 && list.text.contains(id))
            // A write token for other images sees neither the name nor the id (a capability) of this job.
            let other = try fetch(server, "/api/jobs", headers: ["Authorization: Bearer \(try fixture.writeToken("z/*"))"])
            #expect(other.status == 200 && !other.text.contains(id) && !other.text.contains("trips/alps"), "\(other.text)")
            #expect(try fetch(server, "/api/jobs").status == 401, "the job list needs a write token")
            #expect(try fetch(server, "/api/jobs/nosuchjob").status == 404)
        }
        #expect(UploadFixture.contents(of: JobRecord.folder(root: fixture.root)).allSatisfy { $0.hasSuffix(".job") }, "no staged body left")
    }

    @Test func refusalsStoreNothing() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken("a/*")
        let image = try UploadFixture.png(width: 300, height: 200)
        var configuration = fixture.secured.configuration
        configuration.maxUploadBytes = 1 << 20
        let before = UploadFixture.contents(of: fixture.root)
        try await withServer(fixture.secured.pyramids, configuration) { server in
            let put = { (name: String, body: [UInt8], token: String?, query: String) in
                try await blocking { try UploadFixture.put(server, name, body: body, token: token, query: query) }
            }
            let anonymous = try await put("a/new", image, nil, "")
            #expect(anonymous.status == 401 && anonymous.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try await put("a/new", image, try fixture.secured.token("a/*"), "").status == 403, "a read token")
            #expect(try await put("b/new", image, token, "").status == 403, "a token for other images")
            #expect(try await put("a/.hidden", image, token, "").status == 400)
            #expect(try await put("a/x_files", image, token, "").status == 400)
            #expect(try await put("a/new", image, token, "?replace=yes").status == 400)
            #expect(try await put("a/one", image, token, "").status == 409, "an existing name")
            #expect(try await put("a/new", [], token, "").status == 415, "an empty body")
            #expect(try await put("a/new", Array("GIF89a, not one of ours".utf8), token, "").status == 415)
            let big = [UInt8](repeating: 0x89, count: (1 << 20) + 1)
            let tooBig = try await put("a/new", big, token, "")
            #expect(tooBig.status == 413 && tooBig.text.contains("max-upload-mb"), "\(tooBig.text)")
            let noLength = try await blocking { () -> RawResponse in
                let connection = try RawHTTPConnection(port: server.port)
                try connection.request("/api/images/a/new", method: "PUT", headers: ["Authorization: Bearer \(token)"])
                return try connection.readResponse()
            }
            #expect(noLength.status == 411)
            let chunkedTooBig = try await blocking { () -> RawResponse in
                let connection = try RawHTTPConnection(port: server.port)
                try connection.request(
                    "/api/images/a/new", method: "PUT", headers: ["Authorization: Bearer \(token)", "Transfer-Encoding: chunked"])
                let chunk = image + [UInt8](repeating: 7, count: 1 << 20)
                try? connection.send(String(chunk.count, radix: 16) + "\r\n")
                try? connection.send(chunk)
                return try connection.readResponse()
            }
            #expect(chunkedTooBig.status == 413, "a chunked body over the limit, as it streams")
            #expect(try fetch(server, "/api/images/a/new/visible?x=0&y=0&width=1&height=1&zoomScale=1").status != 200)
        }
        let after = UploadFixture.contents(of: fixture.root).filter { !$0.hasPrefix(".tiler-jobs") }
        #expect(after == before, "nothing stored")
        #expect(UploadFixture.contents(of: JobRecord.folder(root: fixture.root)).allSatisfy { $0.hasSuffix(".job") })
    }

    @Test func uploadsAreOffWithoutAccessKeys() async throws {
        let fixture = try PyramidFixture()
        try await withServer(fixture) { server in
            let response = try await blocking { try UploadFixture.put(server, "x", body: try UploadFixture.png(width: 10, height: 10), token: "t") }
            #expect(response.status == 403 && response.text.contains("--access"))
        }
    }

    @Test func uploadsWorkWhereEveryImageIsPublic() async throws {
        let fixture = try PyramidFixture()
        try fixture.write(String(repeating: "public-key-", count: 4) + "\n", to: "keys/k.key")
        try fixture.write(#"{"default": "public", "keys": [{"id": "k", "file": "keys/k.key"}]}"#, to: "open.json")
        let policy = try AccessPolicy(file: fixture.base + "/open.json", environment: [:])
        let token = try policy.mint(images: "*", expires: Int(Date().timeIntervalSince1970) + 600, scope: .write)
        var configuration = testConfiguration(root: fixture.root)
        configuration.accessFile = fixture.base + "/open.json"
        try await withServer(fixture, configuration) { server in
            let image = try UploadFixture.png(width: 50, height: 40)
            #expect(try await blocking { try UploadFixture.put(server, "open", body: image, token: token) }.status == 202)
            #expect(try await blocking { try UploadFixture.put(server, "open2", body: image, token: nil) }.status == 401)
        }
    }

    @Test func aClientThatGoesAwayMidBodyLeavesNothing() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        let image = try UploadFixture.png(width: 400, height: 400)
        try await withServer(fixture.secured.pyramids, fixture.secured.configuration) { server in
            try await blocking {
                let connection = try RawHTTPConnection(port: server.port)
                try connection.request(
                    "/api/images/gone", method: "PUT", headers: ["Authorization: Bearer \(token)", "Content-Length: \(image.count)"])
                try connection.send(Array(image.prefix(image.count / 2)))
                Thread.sleep(forTimeInterval: 0.3)
            }
            var list = ""
            let failed = try await eventually {
                list = try fetch(server, "/api/jobs?token=\(token)").text
                return list.contains("\"name\":\"gone\"") && list.contains("\"state\":\"failed\"") && list.contains("went away")
            }
            #expect(failed, "\(list)")
            #expect(await eventually { UploadFixture.contents(of: JobRecord.folder(root: fixture.root)).allSatisfy { $0.hasSuffix(".job") } })
            // The name is free again: a complete upload of it goes through.
            let again = try await blocking { try UploadFixture.put(server, "gone", body: image, token: token) }
            #expect(again.status == 202)
        }
    }

    /// A PNG, and a JPEG large enough for a coarse view (whose two builds, coarse and full, both meet the damage).
    @Test(arguments: ["png", "jpeg"]) func aDamagedImageFailsItsJobAndPublishesNothing(format: String) async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        let image = try format == "png" ? UploadFixture.png(width: 600, height: 600) : UploadFixture.jpeg(width: 6000, height: 4500)
        let truncated = Array(image.prefix(image.count / 2))
        try await withServer(fixture.secured.pyramids, fixture.secured.configuration) { server in
            // Into a folder that does not exist yet: the job makes it, and removes it again when it fails.
            let response = try await blocking { try UploadFixture.put(server, "fresh/broken", body: truncated, token: token) }
            #expect(response.status == 202, "the body is complete and starts as a PNG")
            let id = try #require((try response.json() as? [String: Any])?["id"] as? String)
            let end = try await UploadFixture.waitForEnd(server, id)
            #expect(end["state"] as? String == "failed")
            let error = end["error"] as? String ?? ""
            #expect(!error.isEmpty && !error.contains("\n") && !error.contains(".tiler-jobs"), "\(error)")
            #expect(end["dzi"] is NSNull && end["viewable"] as? Bool == false)
        }
        let left = UploadFixture.contents(of: fixture.root).filter { $0.contains("broken") || $0.contains("fresh") }
        #expect(left.isEmpty, "no pyramid, no staging folder, not the folder made for it: \(left)")
        #expect(UploadFixture.contents(of: JobRecord.folder(root: fixture.root)).allSatisfy { $0.hasSuffix(".job") }, "no coarse pyramid")
    }

    @Test func twoUploadsOfOneNameAtOnce() async throws {
        let fixture = try UploadFixture()
        let token = try fixture.writeToken()
        let image = try UploadFixture.png(width: 300, height: 300)
        try await withServer(fixture.secured.pyramids, fixture.secured.configuration) { server in
            let first = try RawHTTPConnection(port: server.port, timeout: 30)
            try first.request("/api/images/same", method: "PUT", headers: ["Authorization: Bearer \(token)", "Content-Length: \(image.count)"])
            try first.send(Array(image.prefix(100)))
            #expect(await eventually { (try? fetch(server, "/api/jobs?token=\(token)").text.contains("\"receiving\"")) == true })
            let second = try await blocking { try UploadFixture.put(server, "same", body: image, token: token) }
            #expect(second.status == 409 && second.text.contains("already running"), "\(second.text)")
            let answer = try await blocking { () -> RawResponse in
                try first.send(Array(image.dropFirst(100)))
                return try first.readResponse()
            }
            #expect(answer.status == 202)
        }
    }
}
