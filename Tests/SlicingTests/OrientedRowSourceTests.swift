import Foundation
import ImageCodecs
import Slicing
import Testing

/// Every EXIF orientation turns any row source exactly as the specification says, through the spool file where
/// needed, whatever the size against the 64-row blocks, the channel count and the read sizes the caller asks for.
@Suite struct OrientedRowSourceTests {
    /// Displayed pixel (x, y) of `image` under EXIF `orientation`: the definitions, written out one by one.
    static func expected(_ image: TestImage, orientation: Int) -> TestImage {
        let (w, h) = (image.width, image.height)
        let (outWidth, outHeight) = orientation >= 5 ? (h, w) : (w, h)
        var pixels: [UInt8] = []
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                let (sx, sy): (Int, Int)
                switch orientation {
                case 1: (sx, sy) = (x, y)
                case 2: (sx, sy) = (w - 1 - x, y)
                case 3: (sx, sy) = (w - 1 - x, h - 1 - y)
                case 4: (sx, sy) = (x, h - 1 - y)
                case 5: (sx, sy) = (y, x)
                case 6: (sx, sy) = (y, h - 1 - x)
                case 7: (sx, sy) = (w - 1 - y, h - 1 - x)
                default: (sx, sy) = (w - 1 - y, x)
                }
                pixels += image.pixel(sx, sy)
            }
        }
        return TestImage(width: outWidth, height: outHeight, channels: image.channels, pixels: pixels)
    }

    static let sizes = [(150, 97), (1, 70), (64, 64), (130, 1), (65, 129)]

    @Test("All eight orientations, sizes around the block size, 1–4 channels", arguments: 1...8)
    func orientations(orientation: Int) throws {
        let fixture = try SliceFixture()
        for (width, height) in Self.sizes {
            for channels in [1, 3, 4] {
                let image = TestImage.random(width: width, height: height, channels: channels, seed: UInt64(width * 31 + channels))
                let source = MemoryRowSource(image)
                source.rowsPerRead = 7
                let oriented = OrientedRowSource(source, orientation: Orientation(exif: orientation)!, scratchFolder: fixture.directory)
                let want = Self.expected(image, orientation: orientation)
                #expect(oriented.width == want.width && oriented.height == want.height)
                var got: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 13 * oriented.width * channels)
                while got.count < want.pixels.count {
                    let count = try buffer.withUnsafeMutableBufferPointer { try oriented.readRows(into: $0.baseAddress!, rowCount: 13) }
                    #expect(count > 0)
                    if count == 0 { break }
                    got += buffer.prefix(count * oriented.width * channels)
                }
                #expect(got == want.pixels, "orientation \(orientation), \(width)×\(height)×\(channels)")
                // The spool file was unlinked when it was made: nothing is ever visible in the folder.
                #expect(try fixture.listing() == [])
            }
        }
    }

    @Test("A rotated slice has the displayed size, matches the upright image's pyramid and leaves nothing behind")
    func rotatedSlice() throws {
        let fixture = try SliceFixture()
        let upright = TestImage.random(width: 300, height: 170, channels: 3, seed: 9)
        let builder = PyramidBuilder(options: SliceFixture.options(tileSize: 128))
        // The stored image is the upright one turned 90° counter-clockwise; orientation 6 turns it back.
        let stored = Self.expected(upright, orientation: 8)
        _ = try builder.slice(MemoryRowSource(upright), into: fixture.directory, name: "upright")
        let summary = try builder.slice(MemoryRowSource(stored), orientation: Orientation(exif: 6)!, into: fixture.directory, name: "turned")
        #expect(summary.width == 300 && summary.height == 170)
        #expect(try fixture.descriptor("turned") == fixture.descriptor("upright"))
        for level in [9, 5, 0] {
            #expect(try fixture.tile("turned", level: level, column: 0, row: 0) == fixture.tile("upright", level: level, column: 0, row: 0))
        }
        #expect(try fixture.tile("turned", level: 9, column: 2, row: 1) == fixture.tile("upright", level: 9, column: 2, row: 1))
        #expect(try fixture.listing() == ["turned.dzi", "turned_files", "upright.dzi", "upright_files"])
    }

    @Test("A source failing while it is spooled fails the slice once, naming its row, and leaves nothing behind")
    func failureWhileSpooling() throws {
        let fixture = try SliceFixture()
        let source = MemoryRowSource(TestImage.random(width: 90, height: 200, channels: 3, seed: 4))
        source.failAtRow = 150
        let builder = PyramidBuilder(options: SliceFixture.options())
        do {
            _ = try builder.slice(source, orientation: Orientation(exif: 3)!, into: fixture.directory, name: "broken")
            Issue.record("the slice succeeded")
        } catch {
            #expect(error.reason == .source)
            #expect(error.message.contains("simulated read error"))
        }
        #expect(try fixture.listing() == [])
    }

    @Test("Cancelling while the stored rows are spooled is a cancellation, not a source error")
    func cancelWhileSpooling() throws {
        let fixture = try SliceFixture()
        let source = MemoryRowSource(TestImage.random(width: 90, height: 400, channels: 3, seed: 5))
        let builder = PyramidBuilder(options: SliceFixture.options())
        source.beforeRead = { row in if row >= 128 { builder.cancel() } }
        do {
            _ = try builder.slice(source, orientation: Orientation(exif: 8)!, into: fixture.directory, name: "cancelled")
            Issue.record("the slice succeeded")
        } catch {
            #expect(error.reason == .cancelled)
        }
        #expect(try fixture.listing() == [])
    }
}
