import Foundation
import ImageCodecs
import Slicing
import Testing
import TileGeometry

/// Whole pyramids, pixel for pixel, against ``ReferencePyramid``.
@Suite struct PyramidBuilderTests {
    /// Every tile of every level of `name` equals the reference crop; the folders hold exactly the expected files.
    /// Returns the number of tiles checked.
    static func verify(_ fixture: SliceFixture, _ name: String, reference: [TestImage], tileSize: Int, overlap: Int) throws -> Int {
        let top = reference[reference.count - 1]
        #expect(
            try fixture.descriptor(name) == """
                <?xml version="1.0" encoding="UTF-8"?>
                <Image xmlns="http://schemas.microsoft.com/deepzoom/2008" Format="pam" Overlap="\(overlap)" TileSize="\(tileSize)">
                  <Size Width="\(top.width)" Height="\(top.height)"/>
                </Image>

                """)
        #expect(Set(try fixture.listing("\(name)_files")) == Set(reference.indices.map(String.init)))
        var tiles = 0
        for (index, level) in reference.enumerated() {
            let columns = (level.width + tileSize - 1) / tileSize
            let rows = (level.height + tileSize - 1) / tileSize
            let expectedNames = Set((0..<columns).flatMap { c in (0..<rows).map { r in "\(c)_\(r).pam" } })
            #expect(Set(try fixture.listing("\(name)_files/\(index)")) == expectedNames, "level \(index)")
            for column in 0..<columns {
                for row in 0..<rows {
                    let expected = ReferencePyramid.tile(of: level, column: column, row: row, tileSize: tileSize, overlap: overlap)
                    let actual = try fixture.tile(name, level: index, column: column, row: row)
                    #expect(actual == expected, "level \(index) tile \(column)_\(row)")
                    tiles += 1
                }
            }
        }
        return tiles
    }

    @Test(arguments: [(1, 1), (2, 1), (257, 3), (3, 1025), (1000, 777)], 1...4)
    func matchesReference(size: (width: Int, height: Int), channels: Int) throws {
        let image = TestImage.random(
            width: size.width, height: size.height, channels: channels, seed: UInt64(size.width * 7919 + size.height * 31 + channels))
        let reference = ReferencePyramid.levels(of: image)
        let fixture = try SliceFixture()
        // Every tile size × overlap for the small images; for the big one a covering subset, for time.
        let all = [254, 256, 512].flatMap { tileSize in [0, 1, 2].map { (tileSize, $0) } }
        let configs = size.width * size.height > 100_000 ? [(254, 1), (256, 0), (256, 2), (512, 1)] : all
        var config = 0
        for (tileSize, overlap) in configs {
            config += 1
            let name = "image\(config)"
            let source = MemoryRowSource(image)
            source.rowsPerRead = [Int.max, 7, 1][config % 3]
            let builder = PyramidBuilder(options: SliceFixture.options(tileSize: tileSize, overlap: overlap, threads: 1 + config % 3))
            let summary = try builder.slice(source, into: fixture.directory, name: name)
            let tiles = try Self.verify(fixture, name, reference: reference, tileSize: tileSize, overlap: overlap)
            let pyramid = Pyramid(width: size.width, height: size.height, tileSize: tileSize, overlap: overlap)
            #expect(summary.tiles == tiles && tiles == PyramidBuilder.tileCount(of: pyramid))
            #expect(summary.levels == reference.count && pyramid.levelCount == reference.count)
            #expect(summary.width == size.width && summary.height == size.height && summary.channels == channels)
        }
        // Only the finished pyramids: no staging folders left over.
        #expect(try fixture.listing() == (1...config).flatMap { ["image\($0).dzi", "image\($0)_files"] }.sorted())
    }

    @Test func largeOddImageMatchesReference() throws {
        let image = TestImage.random(width: 4097, height: 4095, channels: 4, seed: 4097)
        let reference = ReferencePyramid.levels(of: image)
        let fixture = try SliceFixture()
        let builder = PyramidBuilder(options: SliceFixture.options(tileSize: 256, overlap: 1, threads: 2))
        let summary = try builder.slice(MemoryRowSource(image), into: fixture.directory, name: "large")
        let tiles = try Self.verify(fixture, "large", reference: reference, tileSize: 256, overlap: 1)
        #expect(summary.tiles == tiles)
        #expect(summary.levels == 14)
    }
}
