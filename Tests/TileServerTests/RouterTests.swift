import NIOCore
import Synchronization
import Testing

@testable import HTTPCore
@testable import TileServer

/// The router without a socket: each route's answer as a ``Response`` value.
@Suite struct RouterTests {
    static func body(_ response: Response) -> (status: HTTPStatus, text: String)? {
        switch response {
        case .body(let status, _, _, let body): (status, String(buffer: body))
        case .file(let file, _, _): (.ok, String(decoding: file.buffer.readableBytesView.dropFirst(file.bodyOffset), as: UTF8.self))
        case .error(let error, _, _): (error.status, error.json)
        case .openFile, .rendered, .deferred, .later, .events: nil
        }
    }

    @Test func answersEachRouteWithAValue() async throws {
        let fixture = try PyramidFixture()
        try fixture.addPyramid("alpha", width: 1000, height: 600, tileBytes: 500)
        // The tile below is answered at once only if it can be read without waiting: not while its page is under
        // writeback (locked), as it was once in a clean root's run among the other suites' writes.
        fixture.writeBack()
        let connection = try await EmbeddedConnection(testConfiguration(root: fixture.root))
        let delivered = Mutex<Response?>(nil)
        let router = connection.router { response in delivered.withLock { $0 = response } }
        var exchange = Exchange(malformedAt: .now())
        let health = Self.body(router.respond(uri: "/healthz", exchange: &exchange))
        #expect(health?.status == .ok && health?.text == #"{"status":"ok","images":1}"#)
        #expect(exchange.route == .health)
        let list = Self.body(router.respond(uri: "/api/images", exchange: &exchange))
        let text = list?.text ?? ""
        let version = String(text.split(separator: "\"version\":\"").last?.prefix(12) ?? "")
        #expect(
            text
                == #"[{"name":"alpha","width":1000,"height":600,"tileSize":256,"overlap":0,"format":"jpg","maxLevel":10,"version":""#
                + version + #"","dzi":"/images/alpha@"# + version + #".dzi"}]"#
        )
        let stale = Self.body(router.respond(uri: "/images/alpha@000000000000_files/10/3_2.jpg", exchange: &exchange))
        #expect(stale?.status == .notFound && stale?.text.contains("re-sliced: its current version is \(version)") == true)
        var tileResponse = router.respond(uri: "/images/alpha_files/10/3_2.jpg", exchange: &exchange)
        if case .later = tileResponse {
            // A read that had to wait after all (a page locked under writeback while the other suites write, despite
            // writeBack above): a file thread reads it and delivers the answer.
            for _ in 0..<1000 where delivered.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(10)) }
            tileResponse = try #require(delivered.withLock { $0 })
        }
        let tile = Self.body(tileResponse)
        #expect(exchange.route == .tile)
        #expect(tile?.status == .ok && Array(tile!.text.utf8) == PyramidFixture.tileBytes(level: 10, column: 3, row: 2, count: 500))
        let missing = Self.body(router.respond(uri: "/images/alpha_files/11/0_0.jpg", exchange: &exchange))
        #expect(missing?.status == .notFound && missing?.text == #"{"error":"alpha has no tile 11/0_0.jpg","status":404}"#)
        let unknown = Self.body(router.respond(uri: "/images/nobody.dzi", exchange: &exchange))
        #expect(unknown?.status == .notFound && unknown?.text == #"{"error":"no image named nobody","status":404}"#)
        let badQuery = Self.body(router.respond(uri: "/api/images/alpha/visible?x=0&y=0&width=10&height=10&zoomScale=-1", exchange: &exchange))
        #expect(badQuery?.status == .badRequest && badQuery?.text.contains("zoomScale") == true)
        let traversal = Self.body(router.respond(uri: "/images/%2e%2e/secret", exchange: &exchange))
        #expect(traversal?.status == .badRequest || traversal?.status == .notFound)
        await connection.stop()
    }

    @Test func onlyIIIFRequestsNeedTheirHeaders() {
        let claimed = ["/iiif/3/a/info.json", "/iiif/2/a/info.json", "/iiif/"]
        let plain = ["/images/a.dzi", "/iiif", "/api/images", "/"]
        for target in claimed {
            #expect(!Array(target.utf8).withUnsafeBytes { Router.answersFromTarget($0) }, "\(target)")
        }
        for target in plain {
            #expect(Array(target.utf8).withUnsafeBytes { Router.answersFromTarget($0) }, "\(target)")
        }
    }
}
