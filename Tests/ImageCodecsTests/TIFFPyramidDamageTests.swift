import CTIFF
import Foundation
import ImageCodecs
import TestSupport
import Testing

/// Damaged and changing files: every fault is a thrown one-line error naming the file — never a crash, a hang, a trap
/// or a libtiff message on stderr — and the undamaged tiles of the file still serve.
@Suite struct TIFFPyramidDamageTests {
    /// vips-jpeg.tif with `patch` applied, written to `directory`; returns its path.
    private func damaged(_ directory: TemporaryDirectory, _ name: String, _ patch: (inout TIFFBytes) -> Void) throws -> String {
        var bytes = TIFFBytes(try PyramidFixtures.shared().bytes("vips-jpeg.tif"))
        patch(&bytes)
        return try directory.write(bytes.bytes, to: name)
    }

    /// Both kinds of tile read of tile (1, 0) of level 0 fail with `reason` (if not empty) in the message; tile (0, 0) still reads.
    private func expectTileFails(_ path: String, containing reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let pyramid = try TIFFPyramid(path: path)
        let decoding = pyramidError({ _ = try pyramid.decodeTile(level: 0, column: 1, row: 0) }, sourceLocation: sourceLocation)
        let passing = pyramidError({ _ = try pyramid.jpegTile(level: 0, column: 1, row: 0) }, sourceLocation: sourceLocation)
        let sending = pyramidError({ _ = try pyramid.jpegTileRegion(level: 0, column: 1, row: 0) }, sourceLocation: sourceLocation)
        #expect(sending?.reason == passing?.reason, "sent from the file or read, the same verdict", sourceLocation: sourceLocation)
        for error in [decoding, passing] {
            #expect(error?.kind == .damaged, sourceLocation: sourceLocation)
            #expect(error?.description.hasPrefix(path + ": tile (1, 0) of level 0 ") == true, sourceLocation: sourceLocation)
            #expect(reason.isEmpty || error?.reason.contains(reason) == true, "\(String(describing: error))", sourceLocation: sourceLocation)
        }
        _ = try pyramid.decodeTile(level: 0, column: 0, row: 0)
        _ = try pyramid.jpegTile(level: 0, column: 0, row: 0)
        _ = try pyramid.jpegTileRegion(level: 0, column: 0, row: 0)
    }

    /// A tile without its EOI (cut short in place) or whose end is all zeros is refused from its head and tail as from
    /// its whole bytes.
    @Test func aTileCutShortIsRefusedWhereItWouldBeSentFromTheFile() throws {
        let directory = try TemporaryDirectory()
        let cut = try damaged(directory, "cut.tif") { bytes in
            let ifd = bytes.chain[0]
            let (offset, count) = (bytes.long(324, 1, in: ifd), bytes.long(325, 1, in: ifd))
            bytes.bytes[offset + count - 2] = 0x12
        }
        let zeros = try damaged(directory, "zeros.tif") { bytes in
            let ifd = bytes.chain[0]
            let (offset, count) = (bytes.long(324, 1, in: ifd), bytes.long(325, 1, in: ifd))
            for k in (count / 2)..<count { bytes.bytes[offset + k] = 0 }
        }
        for path in [cut, zeros] {
            try expectTileFails(path, containing: "")
            let passing = pyramidError { _ = try TIFFPyramid(path: path).jpegTileRegion(level: 0, column: 1, row: 0) }
            #expect(passing?.reason == "tile (1, 0) of level 0 does not end with an EOI marker (cut short?)", "\(String(describing: passing))")
        }
    }

    @Test func tileOffsetPastTheEnd() throws {
        let directory = try TemporaryDirectory()
        let path = try damaged(directory, "offset.tif") { $0.setLong(324, 1, in: $0.chain[0], to: UInt32($0.bytes.count + 1000)) }
        try expectTileFails(path, containing: "lies past the end of the file")
    }

    @Test func tileByteCountsOfZeroAndFourGigabytes() throws {
        let directory = try TemporaryDirectory()
        let zero = try damaged(directory, "zero.tif") { $0.setLong(325, 1, in: $0.chain[0], to: 0) }
        try expectTileFails(zero, containing: "has no data (TileByteCounts is 0)")
        let huge = try damaged(directory, "huge.tif") { $0.setLong(325, 1, in: $0.chain[0], to: 0xFFFF_FFFF) }
        try expectTileFails(huge, containing: "past the end of the file (bytes")
    }

    @Test func corruptJPEGTile() throws {
        let directory = try TemporaryDirectory()
        // The middle of the entropy-coded data: markers stay intact, so only decoding can tell.
        let garbled = try damaged(directory, "garbled.tif") { bytes in
            let ifd = bytes.chain[0]
            let (offset, count) = (bytes.long(324, 1, in: ifd), bytes.long(325, 1, in: ifd))
            for k in 0..<40 { bytes.bytes[offset + count / 3 + k] = k % 2 == 0 ? 0x55 : 0xAA }
        }
        let pyramid = try TIFFPyramid(path: garbled)
        let error = pyramidError { _ = try pyramid.decodeTile(level: 0, column: 1, row: 0) }
        #expect(error?.kind == .damaged)
        #expect(error?.reason.hasPrefix("tile (1, 0) of level 0 is damaged: ") == true, "\(String(describing: error))")
        #expect(error?.description.contains("\n") == false)
        _ = try pyramid.decodeTile(level: 0, column: 0, row: 0)  // the handle recovers
        // The stream's start: pass-through checks the markers.
        let headless = try damaged(directory, "headless.tif") { bytes in
            let offset = bytes.long(324, 1, in: bytes.chain[0])
            bytes.bytes.replaceSubrange(offset..<offset + 4, with: [0, 0, 0, 0])
        }
        try expectTileFails(headless, containing: "")
        let passing = pyramidError { _ = try TIFFPyramid(path: headless).jpegTile(level: 0, column: 1, row: 0) }
        #expect(passing?.reason == "tile (1, 0) of level 0 is not JPEG data (no SOI marker)")
    }

    @Test func ifdLoop() throws {
        let directory = try TemporaryDirectory()
        let path = try damaged(directory, "loop.tif") { bytes in
            let chain = bytes.chain
            bytes.setU32(bytes.nextPointer(of: chain[1]), UInt32(chain[0]))
        }
        let error = pyramidError { _ = try TIFFPyramid(path: path) }
        #expect(error?.kind == .damaged)
        #expect(error?.reason.contains("IFD looping") == true, "\(String(describing: error))")
    }

    /// Cut anywhere, the file fails to open or some tile fails to read, with one line naming the file.
    @Test func truncatedAnywhere() throws {
        let directory = try TemporaryDirectory()
        let whole = try PyramidFixtures.shared().bytes("vips-jpeg.tif")
        for cut in [3, 8, 16, 200, whole.count / 4, whole.count / 2, whole.count * 3 / 4, whole.count - 100, whole.count - 1] {
            let path = try directory.write(Array(whole.prefix(cut)), to: "cut-\(cut).tif")
            var errors: [TIFFPyramidError] = []
            do {
                let pyramid = try TIFFPyramid(path: path)
                for (index, level) in pyramid.levels.enumerated() {
                    for row in 0..<level.rows {
                        for column in 0..<level.columns {
                            do {
                                _ = try pyramid.decodeTile(level: index, column: column, row: row)
                                _ = try pyramid.jpegTile(level: index, column: column, row: row)
                                _ = try pyramid.jpegTileRegion(level: index, column: column, row: row)
                            } catch { errors.append(error) }
                        }
                    }
                }
            } catch { errors.append(error) }
            #expect(!errors.isEmpty, "cut at \(cut) of \(whole.count): nothing failed")
            for error in errors {
                #expect(error.kind == .damaged, "cut at \(cut): \(error)")
                #expect(error.description.hasPrefix(path + ": ") && !error.description.contains("\n"), "\(error)")
            }
        }
    }

    @Test func fileReplacedOrRewrittenWhileOpen() throws {
        let fixtures = try PyramidFixtures.shared()
        let directory = try TemporaryDirectory()
        let original = try fixtures.bytes("vips-jpeg.tif")
        let path = try directory.write(original, to: "served.tif")
        let pyramid = try TIFFPyramid(path: path)
        let before = try pyramid.jpegTile(level: 0, column: 3, row: 2)
        #expect(pyramid.isCurrent)
        #expect(pyramid.identity.size == original.count)
        // Replaced (a new inode under the name): the open file still serves the old tiles; isCurrent notices.
        try directory.write(try fixtures.bytes("vips-subifd.tif"), to: "served.tif")
        #expect(!pyramid.isCurrent)
        #expect(try pyramid.jpegTile(level: 0, column: 3, row: 2) == before)
        // Rewritten in place, shorter: the read fails and says why.
        let rewritten = try directory.write(original, to: "rewritten.tif")
        let second = try TIFFPyramid(path: rewritten)
        #expect(truncate(rewritten, 2000) == 0)
        #expect(!second.isCurrent)
        let error = pyramidError { _ = try second.decodeTile(level: 0, column: 3, row: 2) }
        #expect(error?.kind == .damaged)
        #expect(error?.reason.contains("changed since it was opened") == true, "\(String(describing: error))")
    }

    /// A Deflate tile whose data is zeros: libtiff's ZIP codec reports through the process-wide handlers (bypassing
    /// the handle's), which now print nothing; the failed read says libtiff's reason in its own one-line error.
    @Test func aDamagedDeflateTileFailsWithLibtiffsReasonAndPrintsNothing() throws {
        let directory = try TemporaryDirectory()
        var bytes = TIFFBytes(try PyramidFixtures.shared().bytes("vips-deflate-512.tif"))
        let ifd = bytes.chain[0]
        let (offset, count) = (bytes.long(324, 1, in: ifd), bytes.long(325, 1, in: ifd))
        for k in 0..<count { bytes.bytes[offset + k] = 0 }
        let path = try directory.write(bytes.bytes, to: "zeroed.tif")
        let pyramid = try TIFFPyramid(path: path)
        // Entry 1 of TileOffsets: tile (1, 0).
        let error = pyramidError { _ = try pyramid.decodeTile(level: 0, column: 1, row: 0) }
        #expect(error?.kind == .damaged)
        #expect(error?.reason.hasPrefix("tile (1, 0) of level 0 is damaged: ZIPDecode") == true, "\(String(describing: error))")
        #expect(error?.description.contains("\n") == false)
        _ = try pyramid.decodeTile(level: 0, column: 0, row: 0)
    }

    /// libtiff's process-wide handlers (which print to stderr by default) never see a message from the damage above.
    @Test func nothingReachesLibtiffsGlobalHandlers() throws {
        // The row reader silences the process-wide handlers once; let that happen first, then count what arrives.
        _ = try? ImageDecoder.readHeader(path: PyramidFixtures.shared().path("vips-jpeg.tif"))
        tiler_tiff_count_stray_messages()
        let before = tiler_tiff_stray_messages()
        try tileOffsetPastTheEnd()
        try tileByteCountsOfZeroAndFourGigabytes()
        try corruptJPEGTile()
        try ifdLoop()
        try truncatedAnywhere()
        #expect(tiler_tiff_stray_messages() == before)
    }
}
