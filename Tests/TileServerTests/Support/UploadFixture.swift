import Foundation
import ImageCodecs
import TileServer

/// What the upload tests share: a ROOT with an access policy (``PrivateFixture``), images to upload, and the requests.
struct UploadFixture {
    let secured: PrivateFixture
    var root: String { secured.pyramids.root }

    init() throws {
        secured = try PrivateFixture()
    }

    /// A write token for `images`.
    func writeToken(_ images: String = "*") throws -> String {
        try secured.token(images, scope: .write)
    }

    /// A noisy RGB picture (incompressible enough that its PNG is about 3 bytes a pixel), seeded.
    static func picture(width: Int, height: Int, seed: UInt64 = 7) -> PixelBuffer {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for index in bytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: (state >> 33) & 0x3F) &+ UInt8(truncatingIfNeeded: index / 3 % 150)
        }
        return PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: bytes)
    }

    static func png(width: Int, height: Int, seed: UInt64 = 7) throws -> [UInt8] {
        try PNGEncoder(compressionLevel: 1).encode(picture(width: width, height: height, seed: seed))
    }

    static func jpeg(width: Int, height: Int) throws -> [UInt8] {
        try JPEGEncoder(quality: 80).encode(picture(width: width, height: height))
    }

    /// Sends `PUT /api/images/NAME` with `body` (Content-Length) and reads the answer.
    static func put(_ server: Server, _ name: String, body: [UInt8], token: String?, query: String = "", extra: [String] = []) throws -> RawResponse {
        let connection = try RawHTTPConnection(port: server.port, timeout: 30)
        var headers = ["Content-Length: \(body.count)"] + extra
        if let token { headers.append("Authorization: Bearer \(token)") }
        try connection.request("/api/images/\(name)\(query)", method: "PUT", headers: headers)
        // The server may refuse at the head and close: a failed send of the body is then expected.
        try? connection.send(body)
        return try connection.readResponse()
    }

    /// The job's JSON object.
    static func job(_ server: Server, _ id: String) throws -> [String: Any] {
        (try fetch(server, "/api/jobs/\(id)").json() as? [String: Any]) ?? [:]
    }

    /// Polls the job until it is over (or 60 s pass); returns its last JSON.
    static func waitForEnd(_ server: Server, _ id: String) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        _ = try await eventually(within: 60) {
            last = try job(server, id)
            return ["done", "failed", "cancelled", "interrupted"].contains(last["state"] as? String ?? "")
        }
        return last
    }

    /// Every file and folder under `folder`, relative, sorted (hidden ones included).
    static func contents(of folder: String) -> [String] {
        ((FileManager.default.enumerator(atPath: folder)?.allObjects as? [String]) ?? []).sorted()
    }
}
