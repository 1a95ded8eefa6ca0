import Foundation
import NIOCore
import ObjectStoreTestSupport
import Testing

@testable import ObjectStore

/// The plain-HTTP range source against a real nginx serving a folder.
@Suite struct HTTPRangeSourceTests {
    @Test func readsRangesOfTheVersionAskedFor() async throws {
        let nginx = try await TestNginx()
        defer { nginx.stop() }
        let source = HTTPRangeSource(location: try HTTPLocation(parsing: nginx.url))
        defer { Task { try await source.shutdown() } }
        let content = (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        _ = try nginx.root.write(content, to: "slide one.szi")

        let info = try await source.info("slide one.szi")
        #expect(info.size == 70_000 && info.etag.hasPrefix("\"") && info.lastModified != nil)
        #expect(try await source.read("slide one.szi", range: 100..<5000, ifMatch: info.etag) == ByteBuffer(bytes: content[100..<5000]))
        #expect(try await source.read("slide one.szi", range: 69_990..<80_000) == ByteBuffer(bytes: content[69_990...]))

        // Replaced (another size, so another ETag even within the same second): the old version is refused.
        _ = try nginx.root.write(Array(content.prefix(1000)), to: "slide one.szi")
        do {
            _ = try await source.read("slide one.szi", range: 0..<10, ifMatch: info.etag)
            Issue.record("a replaced file was read")
        } catch let error as ObjectStoreError {
            #expect(error.kind == .changed && error.status == 412, "\(error)")
        }
        #expect(try await source.info("slide one.szi").version != info.version)

        do {
            _ = try await source.info("missing.szi")
            Issue.record("a missing file was found")
        } catch let error as ObjectStoreError {
            #expect(error.kind == .notFound && "\(error)" == "object store \(nginx.url): HEAD missing.szi: not found (404 Not Found)")
        }
        do {
            _ = try await source.list()
            Issue.record("a plain server listed")
        } catch let error as ObjectStoreError {
            #expect(error.kind == .unsupported)
        }
    }

    /// Over TLS, the store's certificate is checked against the authority given (`AWS_CA_BUNDLE`): trusted, the reads
    /// are the bytes; against the system's authorities, which do not know the test's, nothing is read.
    @Test func readsOverTLSOnlyFromATrustedStore() async throws {
        let nginx = try await TestNginx(tls: true)
        defer { nginx.stop() }
        let content = (0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        _ = try nginx.root.write(content, to: "a.szi")
        var trusting = ObjectStoreOptions()
        trusting.caBundle = nginx.caFile
        let source = HTTPRangeSource(location: try HTTPLocation(parsing: nginx.url), options: trusting)
        defer { Task { try await source.shutdown() } }
        let info = try await source.info("a.szi")
        #expect(info.size == 20_000)
        let loop = source.eventLoopGroup.next()
        for range in [0..<100, 5000..<20_000] {
            #expect(try await source.read("a.szi", range: range, ifMatch: info.etag, on: loop).get() == ByteBuffer(bytes: content[range]))
        }

        let untrusting = HTTPRangeSource(
            location: try HTTPLocation(parsing: nginx.url), options: ObjectStoreOptions(retry: RetryPolicy(maxAttempts: 1)))
        defer { Task { try await untrusting.shutdown() } }
        do {
            _ = try await untrusting.read("a.szi", range: 0..<100, ifMatch: nil)
            Issue.record("read from a store whose certificate no trusted authority signed")
        } catch let error as ObjectStoreError {
            #expect("\(error)".contains("GET a.szi: unavailable") && "\(error)".contains("CERTIFICATE_VERIFY_FAILED"), "\(error)")
        }
    }
}
