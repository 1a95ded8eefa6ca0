import Foundation
import ImageCodecs
import NIOCore
import ObjectStore
import ObjectStoreTestSupport
import Slicing

@testable import TileServer

/// Pyramidal TIFFs both under a ROOT and in a bucket of the test gateway — the same files, byte for byte — so that a
/// server of both shows a bucket's TIFF served exactly as the file: `photo.tif` (`vips tiffsave` JPEG tiles of 256,
/// resolution tags of 40 pixels a centimetre), `lossless.tiff` (Deflate, 512-pixel tiles), `sub.ome.tif` (SubIFDs,
/// BigTIFF, Deflate, as OME-TIFF stores levels), and `cog.tif` (`tiler slice --container tiff`: every directory first).
/// In the bucket they are `imgs/remote/NAME`, beside `imgs/notes.txt`.
struct BucketTIFFFixture {
    static let picture = TestPicture.make(width: 1100, height: 700)
    static let names = ["photo.tif", "lossless.tiff", "sub.ome.tif", "cog.tif"]

    let fixture: PyramidFixture
    let client: S3Client
    let gateway: TestGateway

    /// Writes the TIFFs into a new ROOT (vips waited for on a Dispatch thread) and uploads them to a new bucket.
    static func make(_ label: String) async throws -> BucketTIFFFixture {
        let fixture = try await blocking { () throws -> PyramidFixture in
            let fixture = try PyramidFixture()
            let tiles = ["--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid"]
            try fixture.addVipsTIFF(
                "photo.tif", picture: picture,
                options: tiles + ["--compression", "jpeg", "--Q", "90", "--xres", "4", "--yres", "4", "--resunit", "cm"])
            try fixture.addVipsTIFF(
                "lossless.tiff", picture: picture,
                options: ["--tile", "--tile-width", "512", "--tile-height", "512", "--pyramid", "--compression", "deflate"])
            try fixture.addVipsTIFF(
                "sub.ome.tif", picture: picture, options: ["--tile", "--pyramid", "--subifd", "--bigtiff", "--compression", "deflate"])
            try sliceTIFF(picture, to: fixture.root + "/cog.tif", in: fixture)
            return fixture
        }
        let gateway = try TestGateway.shared()
        let client = try await gateway.makeBucket(label)
        do {
            for name in names { try await upload(fixture.root + "/" + name, as: "imgs/remote/" + name, to: client) }
            _ = try await client.put("imgs/notes.txt", body: ByteBuffer(string: "not a pyramid"))
        } catch {
            // A client must be shut down before it goes.
            try? await client.shutdown()
            throw error
        }
        return BucketTIFFFixture(fixture: fixture, client: client, gateway: gateway)
    }

    /// `tiler slice --container tiff` of `picture` to `path`. Blocking.
    static func sliceTIFF(_ picture: PixelBuffer, to path: String, in fixture: PyramidFixture) throws {
        let source = fixture.base + "/slice-source-\(UUID().uuidString).png"
        try Data(try PNGEncoder().encode(picture)).write(to: URL(fileURLWithPath: source))
        var options = TileFormat.jpeg(quality: 85).sliceOptions()
        options.container = .tiff
        options.threads = 2
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        _ = try PyramidBuilder(options: options).slice(try ImageDecoder.open(path: source), into: folder, name: name)
    }

    /// Uploads the file at `path` as `key`.
    static func upload(_ path: String, as key: String, to client: S3Client) async throws {
        _ = try await client.put(key, body: ByteBuffer(bytes: try Data(contentsOf: URL(fileURLWithPath: path))), contentType: "image/tiff")
    }

    /// A server of ROOT and the bucket's `imgs/` (through `endpoint`, the gateway's unless given), rescanning only when
    /// the test asks.
    func configuration(endpoint: String? = nil, root: String? = nil) -> ServerConfiguration {
        var configuration = testConfiguration(root: root ?? fixture.root)
        configuration.objectRoots = ["s3://\(client.configuration.location.bucket)/imgs"]
        configuration.environment = [
            "AWS_ACCESS_KEY_ID": gateway.accessKey, "AWS_SECRET_ACCESS_KEY": gateway.secretKey, "AWS_ENDPOINT_URL": endpoint ?? gateway.endpoint,
            "AWS_REGION": gateway.region,
        ]
        configuration.rescanInterval = .seconds(3600)
        configuration.fullRescanInterval = .seconds(3600)
        configuration.storeRescanInterval = .seconds(3600)
        return configuration
    }

    /// Runs `body` with a server started from `configuration`, shut down after (and the bucket's client).
    func withServer(_ configuration: ServerConfiguration, _ body: (Server) async throws -> Void) async throws {
        let server: Server
        do {
            server = try await Server.start(configuration)
        } catch {
            try? await client.shutdown()
            throw error
        }
        do {
            try await body(server)
        } catch {
            await server.shutdown()
            try? await client.shutdown()
            throw error
        }
        await server.shutdown()
        try? await client.shutdown()
    }
}
