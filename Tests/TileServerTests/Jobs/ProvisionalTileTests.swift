import Foundation
import ImageCodecs
import Testing

@testable import HTTPCore
@testable import TileServer

/// A provisional tile is read while the slicer may still be writing it (in place, one `write`): a file the reader
/// sees cut short — its first pages there, the last not yet — is never served; it is "not written yet" (404, retry),
/// as a missing or empty one is. No socket: the file read and the check of a tile's end.
@Suite struct ProvisionalTileTests {
    static let profile = ResponseProfile(contentType: "image/jpeg", cacheControl: ResponseProfile.noStore, cors: nil)

    /// A real tile of each format: a 256² picture with detail, encoded as the slicer encodes.
    static func tiles() throws -> [(format: String, bytes: [UInt8])] {
        var bytes = [UInt8](repeating: 0, count: 256 * 256 * 3)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for index in bytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[index] = UInt8(truncatingIfNeeded: state >> 56)
        }
        let picture = PixelBuffer(width: 256, height: 256, pixelFormat: .rgb, bytes: bytes)
        return [
            ("jpg", try JPEGEncoder(quality: 85).encode(picture)),
            ("png", try PNGEncoder().encode(picture)),
            ("webp", try WebPEncoder(quality: 80).encode(picture)),
        ]
    }

    @Test func aWholeTileIsServedAndATileCutShortIsNot() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("provisional-tile-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for tile in try Self.tiles() {
            #expect(tile.bytes.count > 4096, "\(tile.format): more than a page, as tiles with detail are")
            let whole = folder + "/whole.\(tile.format)"
            #expect(FileManager.default.createFile(atPath: whole, contents: Data(tile.bytes)))
            let served = Router.provisionalTile(at: whole, format: tile.format, profile: Self.profile)
            guard case .some(.body(status: .ok, _, _, let body)) = served else {
                Issue.record("\(tile.format): a whole tile is served")
                continue
            }
            #expect(body.readableBytes == tile.bytes.count)
            // Cut where a reader can catch a tile being written: at page boundaries, and a byte short of the end.
            for length in [0, 4096, 8192, tile.bytes.count - 1].filter({ $0 < tile.bytes.count }) {
                let cut = folder + "/cut-\(length).\(tile.format)"
                #expect(FileManager.default.createFile(atPath: cut, contents: Data(tile.bytes[..<length])))
                #expect(Router.provisionalTile(at: cut, format: tile.format, profile: Self.profile) == nil, "\(tile.format) cut at \(length)")
            }
        }
        #expect(Router.provisionalTile(at: folder + "/missing.jpg", format: "jpg", profile: Self.profile) == nil)
    }

    @Test func aTilesEndSaysWhetherItIsWhole() throws {
        for tile in try Self.tiles() {
            #expect(tile.bytes.withUnsafeBytes { Router.isWholeTile($0, format: tile.format) }, "\(tile.format)")
            #expect(!Array(tile.bytes.dropLast(2)).withUnsafeBytes { Router.isWholeTile($0, format: tile.format) }, "\(tile.format)")
        }
        // A WebP whose RIFF size says more than is there; a PNG without IEND; a JPEG without SOI.
        #expect(!([UInt8]("RIFF".utf8) + [100, 0, 0, 0] + [UInt8]("WEBPVP8 ".utf8)).withUnsafeBytes { Router.isWholeTile($0, format: "webp") })
        #expect(![UInt8](repeating: 0, count: 40).withUnsafeBytes { Router.isWholeTile($0, format: "png") })
        #expect(![0x00, 0x00, 0xFF, 0xD9].withUnsafeBytes { Router.isWholeTile($0, format: "jpg") })
    }
}
