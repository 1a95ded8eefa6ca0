import Foundation
import Testing
import TileGeometry

@Suite struct PyramidTests {
    static let tileSizes = [1, 2, 7, 254, 256, 512, 1024]

    @Test(arguments: ImageSize.edgeCases)
    func levelSizesHalveRoundingUp(size: ImageSize) {
        let pyramid = Pyramid(width: size.width, height: size.height)
        let expected = Reference.levelSizes(width: size.width, height: size.height)
        #expect(pyramid.maxLevel == Reference.maxLevel(width: size.width, height: size.height))
        #expect(pyramid.levelCount == expected.count)
        for level in 0...pyramid.maxLevel {
            let actual = pyramid.levelSize(level)
            #expect(actual.width == expected[level].width && actual.height == expected[level].height, "level \(level)")
            // The formula form: ceil(W / 2^k) in Double.
            let k = Double(pyramid.maxLevel - level)
            #expect(actual.width == Int((Double(size.width) / pow(2, k)).rounded(.up)))
        }
        #expect(pyramid.levelSize(0) == (1, 1))
        #expect(pyramid.levelSize(pyramid.maxLevel) == (size.width, size.height))
    }

    @Test(arguments: ImageSize.edgeCases, tileSizes)
    func gridsCountTilesCoveringEachLevel(size: ImageSize, tileSize: Int) {
        let pyramid = Pyramid(width: size.width, height: size.height, tileSize: tileSize)
        for level in 0...pyramid.maxLevel {
            let levelSize = pyramid.levelSize(level)
            let grid = pyramid.grid(level)
            #expect(grid.columns == Reference.tileCount(levelSize.width, tileSize: tileSize))
            #expect(grid.rows == Reference.tileCount(levelSize.height, tileSize: tileSize))
        }
    }

    @Test(arguments: [(600, 400, 256), (1, 1, 256), (1000, 3, 7)])
    func tilesListEveryTileLevelByLevelRowByRow(width: Int, height: Int, tileSize: Int) {
        let pyramid = Pyramid(width: width, height: height, tileSize: tileSize)
        var expected: [[Int]] = []
        for level in 0...pyramid.maxLevel {
            let grid = pyramid.grid(level)
            for row in 0..<grid.rows {
                for column in 0..<grid.columns { expected.append([level, column, row]) }
            }
        }
        #expect(pyramid.tiles.map { [$0.level, $0.column, $0.row] } == expected)
    }

    /// Tile rects are a product of column spans and row spans, so checking both axes tiles the level exactly:
    /// spans start where the previous one ended, have the tile size except the last, and end at the level edge.
    @Test(arguments: ImageSize.edgeCases, tileSizes)
    func tileRectsTileEachLevelExactly(size: ImageSize, tileSize: Int) {
        let pyramid = Pyramid(width: size.width, height: size.height, tileSize: tileSize)
        for level in 0...pyramid.maxLevel {
            let levelSize = pyramid.levelSize(level)
            let grid = pyramid.grid(level)
            for column in Self.sample(grid.columns) {
                let rect = pyramid.tileRect(level: level, column: column, row: grid.rows - 1)
                #expect(rect.x == column * tileSize)
                #expect(rect.width == (column == grid.columns - 1 ? levelSize.width - column * tileSize : tileSize))
                #expect(rect.width >= 1)
            }
            for row in Self.sample(grid.rows) {
                let rect = pyramid.tileRect(level: level, column: grid.columns - 1, row: row)
                #expect(rect.y == row * tileSize)
                #expect(rect.height == (row == grid.rows - 1 ? levelSize.height - row * tileSize : tileSize))
                #expect(rect.height >= 1)
            }
            let last = pyramid.tileRect(level: level, column: grid.columns - 1, row: grid.rows - 1)
            #expect(last.maxX == levelSize.width && last.maxY == levelSize.height)
        }
    }

    @Test(arguments: ImageSize.edgeCases, tileSizes)
    func tileFramesMatchTheFormula(size: ImageSize, tileSize: Int) {
        let pyramid = Pyramid(width: size.width, height: size.height, tileSize: tileSize)
        for level in 0...pyramid.maxLevel {
            let grid = pyramid.grid(level)
            let k = pyramid.maxLevel - level
            for column in Self.sample(grid.columns) {
                let frame = pyramid.tileFrame(level: level, column: column, row: 0)
                let expected = Reference.frameSpan(column, tileSize: tileSize, scaleShift: k, extent: size.width)
                #expect(Double(frame.x) == expected.start && Double(frame.width) == expected.length, "level \(level) col \(column)")
                // The frame shrunk by 2^k is the tile rect.
                let rect = pyramid.tileRect(level: level, column: column, row: 0)
                #expect(frame.x >> k == rect.x && (frame.width + (1 << k) - 1) >> k == rect.width)
            }
            for row in Self.sample(grid.rows) {
                let frame = pyramid.tileFrame(level: level, column: 0, row: row)
                let expected = Reference.frameSpan(row, tileSize: tileSize, scaleShift: k, extent: size.height)
                #expect(Double(frame.y) == expected.start && Double(frame.height) == expected.length, "level \(level) row \(row)")
            }
        }
    }

    @Test(arguments: [(300, 200, 256, 1), (1000, 1000, 254, 1), (600, 400, 256, 3), (5, 5, 2, 1)])
    func tileImageRectsAddOverlapWhereANeighbourIs(width: Int, height: Int, tileSize: Int, overlap: Int) {
        let pyramid = Pyramid(width: width, height: height, tileSize: tileSize, overlap: overlap)
        let level = pyramid.maxLevel
        let grid = pyramid.grid(level)
        for row in 0..<grid.rows {
            for column in 0..<grid.columns {
                let core = pyramid.tileRect(level: level, column: column, row: row)
                let image = pyramid.tileImageRect(level: level, column: column, row: row)
                #expect(image.x == core.x - (column > 0 ? overlap : 0))
                #expect(image.y == core.y - (row > 0 ? overlap : 0))
                #expect(image.maxX == min(core.maxX + (column < grid.columns - 1 ? overlap : 0), width))
                #expect(image.maxY == min(core.maxY + (row < grid.rows - 1 ? overlap : 0), height))
            }
        }
    }

    /// All indices when few, else the first and last 300 and a stride through the middle.
    static func sample(_ count: Int) -> [Int] {
        guard count > 1_000 else { return Array(0..<count) }
        return Array(0..<300) + Array(stride(from: 300, to: count - 300, by: max(1, (count - 600) / 400))) + Array((count - 300)..<count)
    }
}
