import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The caching model end to end with the real `tiler`: URLs handed out are versioned and immutable; a re-slice with
/// `--force` gives new bytes only under a new version; the old version never answers new bytes; unversioned URLs
/// always revalidate.
@Suite struct ServeReSliceTests {
    /// A GET with no client-side cache: status, headers and body.
    static func get(_ url: String) throws -> (status: Int, headers: [String: String], body: Data) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        return try get(url, session: session)
    }

    /// A GET through `session` (waiting at most 30 s): status, headers (names lower-cased) and body.
    static func get(_ url: String, session: URLSession) throws -> (status: Int, headers: [String: String], body: Data) {
        let result = Locked<(Int, [String: String], Data)>((0, [:], Data()))
        let done = DispatchSemaphore(value: 0)
        let address = try #require(URL(string: url))
        session.dataTask(with: address) { data, response, _ in
            let http = response as? HTTPURLResponse
            var headers: [String: String] = [:]
            for (key, value) in http?.allHeaderFields ?? [:] {
                headers[String(describing: key).lowercased()] = String(describing: value)
            }
            result.value = (http?.statusCode ?? 0, headers, data ?? Data())
            done.signal()
        }.resume()
        _ = done.wait(timeout: .now() + 30)
        return result.value
    }

    /// The `dzi` URL `/api/images` hands out for `name`.
    static func announced(_ base: String, _ name: String) throws -> String? {
        let list = try JSONSerialization.jsonObject(with: try get(base + "api/images").body) as? [[String: Any]]
        return list?.first { $0["name"] as? String == name }?["dzi"] as? String
    }

    @Test func aReSliceIsServedUnderANewVersionAndTheOldVersionNeverShowsNewBytes() throws {
        let fixtures = try Fixtures()
        defer { fixtures.remove() }
        let root = fixtures.path("root")
        let first = fixtures.path("first.jpg")
        let second = fixtures.path("second.jpg")
        #expect(try TilerProcess.run(["sample", first, "--size", "700x500", "--seed", "1", "--quiet"]).status == 0)
        #expect(try TilerProcess.run(["sample", second, "--size", "700x500", "--seed", "2", "--quiet"]).status == 0)
        #expect(try TilerProcess.run(["slice", first, "-o", root, "--name", "photo", "--quiet"]).status == 0)
        let (process, _, base) = try ServeCommandTests().start(["serve", root, "--port", "0"])
        defer { if process.isRunning { process.terminate() } }
        let server = String(base.dropLast())  // "http://127.0.0.1:PORT"
        let oldDZI = try #require(try Self.announced(base, "photo"))
        #expect(oldDZI.hasPrefix("/images/photo@") && oldDZI.hasSuffix(".dzi"), "\(oldDZI)")
        let oldTile = String(oldDZI.dropLast(4)) + "_files/10/1_1.jpg"
        let plainTile = "/images/photo_files/10/1_1.jpg"

        let before = try Self.get(server + oldTile)
        #expect(before.status == 200 && before.headers["cache-control"] == "public, max-age=31536000, immutable")
        let plainBefore = try Self.get(server + plainTile)
        #expect(plainBefore.status == 200 && plainBefore.body == before.body)
        #expect(plainBefore.headers["cache-control"] == "no-cache" && plainBefore.headers["etag"] != nil)
        #expect(try Self.get(server + oldDZI).headers["cache-control"] == "public, max-age=31536000, immutable")

        #expect(try TilerProcess.run(["slice", second, "-o", root, "--name", "photo", "--force", "--quiet"]).status == 0)
        let onDisk = try Data(contentsOf: URL(fileURLWithPath: root + "/photo_files/10/1_1.jpg"))
        #expect(onDisk != before.body, "the second picture's tile differs")
        // Until the rescan sees the new pyramid, the old version may still be current; it must never show new bytes.
        var newDZI: String?
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let old = try Self.get(server + oldTile)
            #expect(old.status == 404 || old.body == before.body, "the old version answered other bytes")
            if let announced = try Self.announced(base, "photo"), announced != oldDZI {
                newDZI = announced
                break
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let current = try #require(newDZI, "a new version was announced within the rescan interval")
        let newTile = String(current.dropLast(4)) + "_files/10/1_1.jpg"
        let after = try Self.get(server + newTile)
        #expect(after.status == 200 && after.body == onDisk)
        #expect(after.headers["cache-control"] == "public, max-age=31536000, immutable")
        let stale = try Self.get(server + oldTile)
        #expect(stale.status == 404 && String(decoding: stale.body, as: UTF8.self).contains("re-sliced"))
        #expect(try Self.get(server + oldDZI).status == 404)
        let plainAfter = try Self.get(server + plainTile)
        #expect(plainAfter.body == onDisk && plainAfter.headers["cache-control"] == "no-cache")
        #expect(plainAfter.headers["etag"] != plainBefore.headers["etag"], "the entity tag changed with the bytes")
    }
}
