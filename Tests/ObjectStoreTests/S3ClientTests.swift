import Foundation
import NIOCore
import ObjectStoreTestSupport
import Testing

@testable import ObjectStore

/// Against a real Ceph RADOS Gateway (``TestGateway``).
@Suite struct S3ClientTests {
    private func bytes(_ count: Int, seed: UInt8 = 0) -> ByteBuffer {
        ByteBuffer(bytes: (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
    }

    private func expectError(_ kind: ObjectStoreError.Kind, _ body: () async throws -> Void) async -> ObjectStoreError? {
        do {
            try await body()
            Issue.record("expected a \(kind) error")
        } catch let error as ObjectStoreError {
            #expect(error.kind == kind, "\(error)")
            return error
        } catch {
            Issue.record("not an ObjectStoreError: \(error)")
        }
        return nil
    }

    @Test func headAndRangedReads() async throws {
        let client = try await TestGateway.shared().makeBucket("read", prefix: "slides")
        defer { Task { try await client.shutdown() } }
        let object = bytes(100_000)
        let etag = try await client.put("case 1/a+b é.szi", body: object)
        let info = try await client.info("case 1/a+b é.szi")
        #expect(info.size == 100_000 && info.etag == etag && !etag.isEmpty)
        #expect(abs(info.lastModified?.timeIntervalSinceNow ?? 1e9) < 600)
        let middle = try await client.read("case 1/a+b é.szi", range: 1000..<30_000, ifMatch: info.etag)
        #expect(middle == object.getSlice(at: 1000, length: 29_000))
        let pastTheEnd = try await client.read("case 1/a+b é.szi", range: 99_990..<200_000)
        #expect(pastTheEnd == object.getSlice(at: 99_990, length: 10))
        let whole = try await client.get("case 1/a+b é.szi")
        #expect(whole == object)
    }

    @Test func aReplacedObjectIsChangedNotMixed() async throws {
        let client = try await TestGateway.shared().makeBucket("changed")
        defer { Task { try await client.shutdown() } }
        try await client.put("a.szi", body: bytes(5000, seed: 1))
        let before = try await client.info("a.szi")
        try await client.put("a.szi", body: bytes(5000, seed: 2))
        let after = try await client.info("a.szi")
        #expect(before.etag != after.etag && before.version != after.version)
        let error = await expectError(.changed) { _ = try await client.read("a.szi", range: 0..<10, ifMatch: before.etag) }
        #expect(error?.status == 412 && error?.key == "a.szi")
        #expect(try await client.read("a.szi", range: 0..<10, ifMatch: after.etag) == bytes(5000, seed: 2).getSlice(at: 0, length: 10))
    }

    @Test func missingObjectsAndBucketsAreNotFound() async throws {
        let gateway = try TestGateway.shared()
        let client = try await gateway.makeBucket("missing", prefix: "p")
        defer { Task { try await client.shutdown() } }
        let head = await expectError(.notFound) { _ = try await client.info("nope.szi") }
        #expect(head?.status == 404 && head?.description.contains("HEAD nope.szi: not found (404") == true)
        let get = await expectError(.notFound) { _ = try await client.read("nope.szi", range: 0..<1) }
        #expect(get?.detail == "NoSuchKey")
        let noBucket = try gateway.client(bucket: "no-such-bucket-\(UInt32.random(in: 0...UInt32.max))", prefix: "", secret: nil)
        defer { Task { try await noBucket.shutdown() } }
        let list = await expectError(.notFound) { _ = try await noBucket.list() }
        #expect(list?.detail == "NoSuchBucket")
    }

    @Test func aWrongSecretIsForbiddenAndNeverShown() async throws {
        let gateway = try TestGateway.shared()
        let owner = try await gateway.makeBucket("forbidden")
        defer { Task { try await owner.shutdown() } }
        try await owner.put("a", body: bytes(10))
        let secret = "wrong-secret-that-must-not-be-printed"
        let intruder = try gateway.client(bucket: owner.configuration.location.bucket, prefix: "", secret: secret)
        defer { Task { try await intruder.shutdown() } }
        for attempt in [{ _ = try await intruder.info("a") }, { _ = try await intruder.read("a", range: 0..<5) }, { _ = try await intruder.list() }] {
            let error = await expectError(.forbidden, attempt)
            let line = error.map { "\($0)" } ?? ""
            #expect(
                error?.status == 403 && !line.contains(secret) && !line.contains(gateway.secretKey) && !line.contains(gateway.accessKey), "\(line)")
        }
        #expect(await expectError(.forbidden) { _ = try await intruder.read("a", range: 0..<5) }?.detail == "SignatureDoesNotMatch")
    }

    @Test func listingReadsEveryPage() async throws {
        let client = try await TestGateway.shared().makeBucket("list", prefix: "root/")
        defer { Task { try await client.shutdown() } }
        let keys = (0..<23).map { String(format: "img-%02d.szi", $0) } + ["sub/deep.tif", "sub dir/x&y<z>.szi"]
        for key in keys { try await client.put(key, body: bytes(key.count)) }
        let outside = try TestGateway.shared().client(bucket: client.configuration.location.bucket, prefix: "", secret: nil)
        defer { Task { try await outside.shutdown() } }
        try await outside.put("elsewhere.szi", body: bytes(3))
        let listed = try await client.list(prefix: "", pageSize: 5)
        #expect(listed.map(\.key) == keys.sorted())
        #expect(listed.allSatisfy { $0.size == $0.key.count && $0.etag.hasPrefix("\"") && $0.lastModified != nil })
        #expect(try await client.list(prefix: "img-1").count == 10)
        let page = try await client.listPage(prefix: "", delimiter: "/", on: client.eventLoopGroup.any()).get()
        #expect(page.commonPrefixes == ["sub dir/", "sub/"] && page.objects.count == 23 && page.nextContinuationToken == nil)
    }

    @Test func multipartUploadsAppearWholeOnlyWhenCompleted() async throws {
        let client = try await TestGateway.shared().makeBucket("multipart", prefix: "out")
        defer { Task { try await client.shutdown() } }
        let first = bytes(5 * 1024 * 1024, seed: 3)
        let second = bytes(1234, seed: 4)
        let id = try await client.createUpload("big.szi", contentType: "application/zip")
        let parts = [
            try await client.uploadPart("big.szi", uploadID: id, partNumber: 1, body: first),
            try await client.uploadPart("big.szi", uploadID: id, partNumber: 2, body: second),
        ]
        _ = await expectError(.notFound) { _ = try await client.info("big.szi") }
        #expect(try await client.pendingUploads().map(\.uploadID) == [id])
        try await client.completeUpload("big.szi", uploadID: id, parts: parts.reversed())
        let info = try await client.info("big.szi")
        #expect(info.size == first.readableBytes + second.readableBytes && info.etag.hasSuffix("-2\""))
        let seam = try await client.read("big.szi", range: first.readableBytes - 4..<first.readableBytes + 4, ifMatch: info.etag)
        var expected = first.getSlice(at: first.readableBytes - 4, length: 4)!
        expected.writeImmutableBuffer(second.getSlice(at: 0, length: 4)!)
        #expect(seam == expected)
        #expect(try await client.pendingUploads().isEmpty)
    }

    @Test func abortedAndSweptUploadsLeaveNothing() async throws {
        let client = try await TestGateway.shared().makeBucket("abort", prefix: "out")
        defer { Task { try await client.shutdown() } }
        let aborted = try await client.createUpload("a.szi")
        _ = try await client.uploadPart("a.szi", uploadID: aborted, partNumber: 1, body: bytes(1000))
        try await client.abortUpload("a.szi", uploadID: aborted)
        try await client.abortUpload("a.szi", uploadID: aborted)
        _ = await expectError(.notFound) { _ = try await client.info("a.szi") }
        #expect(try await client.pendingUploads().isEmpty)

        // Leftovers of killed writers: swept once older than the cutoff, and only under the prefix asked for.
        let leftovers = [try await client.createUpload("b.szi"), try await client.createUpload("c/d.tif")]
        _ = try await client.uploadPart("b.szi", uploadID: leftovers[0], partNumber: 1, body: bytes(100))
        #expect(Set(try await client.pendingUploads().map(\.uploadID)) == Set(leftovers))
        #expect(try await client.pendingUploads().allSatisfy { $0.initiated != nil })
        #expect(try await client.sweepUploads(startedBefore: Date(timeIntervalSinceNow: -3600)) == 0)
        #expect(try await client.sweepUploads(prefix: "c/", startedBefore: Date(timeIntervalSinceNow: 3600)) == 1)
        #expect(try await client.pendingUploads().map(\.key) == ["b.szi"])
        #expect(try await client.sweepUploads(startedBefore: Date(timeIntervalSinceNow: 3600)) == 1)
        #expect(try await client.pendingUploads().isEmpty)
    }
}
