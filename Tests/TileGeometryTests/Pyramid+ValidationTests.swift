import Testing
import TileGeometry

@Suite struct PyramidValidationTests {
    @Test(arguments: [
        (0, 1, 256, 0, "width"), (-1, 1, 256, 0, "width"), (Int.min, 1, 256, 0, "width"), (Int.max, 1, 256, 0, "width"),
        ((1 << 31) + 1, 1, 256, 0, "width"), (1, 0, 256, 0, "height"), (1, Int.max, 256, 0, "height"),
        (10, 10, 0, 0, "tileSize"), (10, 10, -256, 0, "tileSize"), (10, 10, 8193, 0, "tileSize"), (10, 10, Int.max, 0, "tileSize"),
        (10, 10, 256, -1, "overlap"), (10, 10, 256, 256, "overlap"), (10, 10, 1, 1, "overlap"), (10, 10, 256, Int.min, "overlap"),
    ])
    func rejectsOutOfRangeValuesNamingTheParameter(width: Int, height: Int, tileSize: Int, overlap: Int, parameter: String) {
        let error = #expect(throws: GeometryError.self) {
            try Pyramid.validated(width: width, height: height, tileSize: tileSize, overlap: overlap)
        }
        #expect(error?.parameter == parameter)
        #expect(error?.message.hasPrefix(parameter + " ") == true)
    }

    @Test(arguments: [(1, 1, 1, 0), (1 << 31, 1 << 31, 1, 0), (1 << 31, 3, 8192, 8191), (600, 400, 256, 255)])
    func acceptsTheLimits(width: Int, height: Int, tileSize: Int, overlap: Int) throws {
        let pyramid = try Pyramid.validated(width: width, height: height, tileSize: tileSize, overlap: overlap)
        #expect(pyramid == Pyramid(width: width, height: height, tileSize: tileSize, overlap: overlap))
        // The largest quantities stay exact: the last tile's frame at every level ends at the image edge.
        for level in [0, pyramid.maxLevel / 2, pyramid.maxLevel] {
            let grid = pyramid.grid(level)
            let frame = pyramid.tileFrame(level: level, column: grid.columns - 1, row: grid.rows - 1)
            #expect(frame.maxX == width && frame.maxY == height)
        }
    }
}
