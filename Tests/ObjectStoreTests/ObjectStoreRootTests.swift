import Testing

@testable import ObjectStore

@Suite struct ObjectStoreRootTests {
    @Test func s3RootsNameABucketAndAPrefix() throws {
        #expect(try ObjectStoreRoot.parse("s3://tiles") == .s3(S3Location(bucket: "tiles", prefix: "")))
        #expect(try ObjectStoreRoot.parse("s3://tiles/slides/2024") == .s3(S3Location(bucket: "tiles", prefix: "slides/2024/")))
        #expect(try ObjectStoreRoot.parse("S3://tiles/slides/")?.description == "s3://tiles/slides/")
        #expect(S3Location(bucket: "my.bucket").needsPathStyle && !S3Location(bucket: "plain-bucket").needsPathStyle)
        #expect(throws: ObjectStoreRootError.self) { try ObjectStoreRoot.parse("s3:///prefix") }
        #expect(throws: ObjectStoreRootError.self) { try ObjectStoreRoot.parse("s3://a b/") }
    }

    @Test func httpRootsAreFolders() throws {
        let root = try #require(try ObjectStoreRoot.parse("https://data.example.org/public/images"))
        guard case .http(let location) = root else {
            Issue.record("not http: \(root)")
            return
        }
        #expect(location.scheme == "https" && location.host == "data.example.org" && location.port == nil && location.path == "/public/images/")
        #expect(location.description == "https://data.example.org/public/images/")
        let local = try HTTPLocation(parsing: "http://127.0.0.1:8080")
        #expect(local.port == 8080 && local.path == "/" && local.origin == "http://127.0.0.1:8080")
        #expect(try HTTPLocation(parsing: "http://[::1]:81/x/").origin == "http://[::1]:81")
        #expect(throws: ObjectStoreRootError.self) { try HTTPLocation(parsing: "https://user:pw@host/") }
        #expect(throws: ObjectStoreRootError.self) { try HTTPLocation(parsing: "http://host:99999/") }
        #expect(throws: ObjectStoreRootError.self) { try HTTPLocation(parsing: "http://host/?a=b") }
    }

    @Test func localPathsAreNotRoots() throws {
        #expect(try ObjectStoreRoot.parse("/srv/images") == nil)
        #expect(try ObjectStoreRoot.parse("images") == nil)
    }
}
