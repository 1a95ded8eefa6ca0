import Archive
import Foundation
import ImageCodecs
import NIOCore
import ObjectSources
import ObjectStore
import ObjectStoreTestSupport
import TestSupport
import Testing

/// Pyramidal TIFFs in a real S3 (a Ceph RADOS Gateway, ``TestGateway``), opened with as few ranged GETs as their layout
/// allows — a COG layout with one or two, a layout with directories after their tiles about one a level — and read
/// back tile by tile: the same levels, index and bytes as the file, one GET a tile.
@Suite struct ObjectTIFFPyramidTests {
    static let maxTileBytes = 1 << 22

    /// Uploads `path` as `key` and opens it through a counting reader.
    static func openRemote(_ path: String, as key: String, in client: S3Client) async throws -> (ObjectTIFFPyramid, CountingReader) {
        let info = try await upload([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), as: key, to: client)
        let reader = CountingReader(client)
        return (try await ObjectTIFFPyramid(source: ObjectByteSource(reader: reader, info: info)), reader)
    }

    static func upload(_ bytes: [UInt8], as key: String, to client: S3Client) async throws -> ObjectInfo {
        _ = try await client.put(key, body: ByteBuffer(bytes: bytes), contentType: "image/tiff")
        return try await client.info(key)
    }

    /// The remote pyramid equals the file's — levels, layout, profile, description, prefixes — and every tile of level
    /// `level` read through the store takes one GET and gives the file's bytes: the JPEG tile passed through, or, for
    /// another compression, the same decoded pixels.
    static func expectSameAsFile(_ remote: ObjectTIFFPyramid, reader: CountingReader, path: String, level: Int) async throws {
        let local = try TIFFPyramid(path: path)
        let pyramid = remote.pyramid
        #expect(pyramid.levels == local.levels && pyramid.layout == local.layout && pyramid.bigTIFF == local.bigTIFF)
        #expect(pyramid.iccProfile == local.iccProfile && pyramid.imageDescription == local.imageDescription)
        #expect(pyramid.tagMicronsPerPixel?.x == local.tagMicronsPerPixel?.x)
        let stored = local.levels[level]
        let loop = reader.eventLoopGroup.any()
        for row in 0..<stored.rows {
            for column in 0..<stored.columns {
                let before = reader.gets
                if stored.jpegPassThrough {
                    let bytes = try await remote.jpegTile(level: level, column: column, row: row, maxBytes: maxTileBytes, on: loop).get()
                    #expect(bytes == (try local.jpegTile(level: level, column: column, row: row)), "tile \(level)/\(column)_\(row)")
                } else {
                    let bytes = try await remote.storedTile(level: level, column: column, row: row, maxBytes: maxTileBytes, on: loop).get()
                    var pixels = [UInt8](repeating: 0, count: stored.decodedTileBytes)
                    try pixels.withUnsafeMutableBytes { try pyramid.decodeTile(level: level, column: column, row: row, stored: bytes, into: $0) }
                    #expect(pixels == (try local.decodeTile(level: level, column: column, row: row)), "tile \(level)/\(column)_\(row)")
                }
                #expect(reader.gets == before + 1, "one GET per tile")
            }
        }
    }

    @Test func aCOGLayoutOpensWithOneGETAndReadsAsTheFile() async throws {
        let folder = try TemporaryDirectory(prefix: "object-tiff")
        let path = try TIFFFixtures.sliced(width: 3000, height: 2000, in: folder, name: "cog")
        let client = try await TestGateway.shared().makeBucket("tiff-cog", prefix: "slides/")
        defer { Task { try await client.shutdown() } }
        let (remote, reader) = try await Self.openRemote(path, as: "2026/cog.tif", in: client)
        #expect(reader.gets == 1 && remote.openReads == 1, "every directory and tile table lies in the first 64 KiB: \(reader.ranges)")
        #expect(reader.ranges.first == 0..<ObjectTIFFPyramid.defaultHeadBytes && reader.heads == 0)
        #expect(remote.heldBytes < 16_384, "only the directories are kept (\(remote.heldBytes) bytes)")
        try await Self.expectSameAsFile(remote, reader: reader, path: path, level: 0)
        try await Self.expectSameAsFile(remote, reader: reader, path: path, level: 2)
    }

    /// Tile tables larger than the first read: one more GET, which brings every level's (they follow each other).
    @Test func aCOGWhoseTileTablesPassTheFirstReadOpensWithTwoGETs() async throws {
        let folder = try TemporaryDirectory(prefix: "object-tiff")
        let path = try TIFFFixtures.sliced(width: 4096, height: 4096, tileSize: 64, bigTIFF: true, in: folder, name: "many")
        let local = try TIFFPyramid(path: path)
        #expect(local.levels.reduce(0) { $0 + $1.columns * $1.rows } * 16 > ObjectTIFFPyramid.defaultHeadBytes, "tables of more than 64 KiB")
        let client = try await TestGateway.shared().makeBucket("tiff-many")
        defer { Task { try await client.shutdown() } }
        let (remote, reader) = try await Self.openRemote(path, as: "many.tif", in: client)
        #expect(reader.gets == 2, "\(reader.ranges)")
        try await Self.expectSameAsFile(remote, reader: reader, path: path, level: 3)
    }

    /// GDAL's COG (`gdal_translate`: scripts/test installs Debian's gdal-bin).
    @Test func gdalsCOGOpensWithOneGETAndReadsAsTheFile() async throws {
        let folder = try TemporaryDirectory(prefix: "object-tiff")
        let path = try TIFFFixtures.gdalCOG(width: 3000, height: 2000, in: folder, name: "gdal.tif")
        let client = try await TestGateway.shared().makeBucket("tiff-gdal")
        defer { Task { try await client.shutdown() } }
        let (remote, reader) = try await Self.openRemote(path, as: "gdal.tif", in: client)
        #expect(reader.gets == 1, "\(reader.ranges)")
        try await Self.expectSameAsFile(remote, reader: reader, path: path, level: 0)
        // GDAL, the reference reader, reads the same object through its own S3 client (`/vsis3/`) as these levels.
        let gateway = try TestGateway.shared()
        let host = try #require(URL(string: gateway.endpoint).map { "\($0.host ?? ""):\($0.port ?? 80)" })
        let config = [
            "AWS_S3_ENDPOINT": host, "AWS_HTTPS": "NO", "AWS_VIRTUAL_HOSTING": "FALSE", "AWS_ACCESS_KEY_ID": gateway.accessKey,
            "AWS_SECRET_ACCESS_KEY": gateway.secretKey, "AWS_REGION": gateway.region,
        ].flatMap { ["--config", $0.key, $0.value] }
        let info = try ExternalTool.run(
            "/usr/bin/gdalinfo", config + ["-json", "/vsis3/\(client.configuration.location.bucket)/gdal.tif"])
        #expect(info.status == 0, "\(info.errors)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.output.utf8)) as? [String: Any])
        let band = try #require((json["bands"] as? [[String: Any]])?.first)
        let sizes = [json["size"] as? [Int]] + ((band["overviews"] as? [[String: Any]]) ?? []).map { $0["size"] as? [Int] }
        #expect(sizes == remote.pyramid.levels.map { [$0.width, $0.height] }, "\(sizes)")
    }

    /// `vips tiffsave --pyramid` writes each directory after its level's tiles: a GET for each directory not already
    /// fetched (the last levels' lie together), in TIFF and BigTIFF alike.
    @Test(arguments: [false, true]) func aVipsPyramidOpensADirectoryAtATime(bigTIFF: Bool) async throws {
        let folder = try TemporaryDirectory(prefix: "object-tiff")
        let options =
            ["--tile", "--tile-width", "256", "--tile-height", "256", "--pyramid", "--compression", "jpeg"] + (bigTIFF ? ["--bigtiff"] : [])
        let path = try TIFFFixtures.vips(options, width: 3000, height: 2000, in: folder, name: "vips.tif")
        let client = try await TestGateway.shared().makeBucket("tiff-vips")
        defer { Task { try await client.shutdown() } }
        let (remote, reader) = try await Self.openRemote(path, as: "vips.tif", in: client)
        let levels = remote.pyramid.levels.count
        #expect(remote.pyramid.bigTIFF == bigTIFF && levels == 5, "3000 × 2000 down to one tile of 256")
        #expect(reader.gets >= 2 && reader.gets <= levels + 1, "\(reader.gets) GETs for \(levels) levels: \(reader.ranges)")
        try await Self.expectSameAsFile(remote, reader: reader, path: path, level: 1)
    }

    /// SubIFDs of IFD 0, as OME-TIFF and `vips tiffsave --subifd` store them.
    @Test func subIFDsReadAsTheFile() async throws {
        let folder = try TemporaryDirectory(prefix: "object-tiff")
        let options = ["--tile", "--pyramid", "--subifd", "--compression", "jpeg"]
        let path = try TIFFFixtures.vips(options, width: 2500, height: 1800, in: folder, name: "sub.ome.tif")
        let client = try await TestGateway.shared().makeBucket("tiff-subifd")
        defer { Task { try await client.shutdown() } }
        let (remote, reader) = try await Self.openRemote(path, as: "sub.ome.tif", in: client)
        #expect(remote.pyramid.layout == .subIFDs)
        try await Self.expectSameAsFile(remote, reader: reader, path: path, level: 0)
        try await Self.expectSameAsFile(remote, reader: reader, path: path, level: 3)
    }

    /// Tiles in other compressions are decoded from one GET of their bytes, as from the file, on every level: the
    /// decoding handles read their level's directory again from what the open kept.
    @Test(arguments: ["lzw", "deflate"]) func losslessTilesDecodeAsTheFile(compression: String) async throws {
        let folder = try TemporaryDirectory(prefix: "object-tiff")
        let options = ["--tile", "--pyramid", "--compression", compression, "--predictor", "horizontal"]
        let path = try TIFFFixtures.vips(options, width: 1500, height: 1100, in: folder, name: "\(compression).tif")
        let client = try await TestGateway.shared().makeBucket("tiff-\(compression)")
        defer { Task { try await client.shutdown() } }
        let (remote, reader) = try await Self.openRemote(path, as: "\(compression).tif", in: client)
        #expect(remote.pyramid.levels.allSatisfy { !$0.jpegPassThrough })
        for level in remote.pyramid.levels.indices {
            try await Self.expectSameAsFile(remote, reader: reader, path: path, level: level)
        }
    }
}
