import ImageCodecs
import Testing

/// The TIFFPyramidError `body` throws, or nil (recorded as an issue) when it throws nothing or something else.
func pyramidError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> TIFFPyramidError? {
    do {
        try body()
        Issue.record("expected a TIFFPyramidError", sourceLocation: sourceLocation)
        return nil
    } catch let error as TIFFPyramidError {
        return error
    } catch {
        Issue.record("threw something other than TIFFPyramidError: \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// What a test compares of a level: size, tile size, tile grid and compression.
struct LevelShape: Equatable, CustomStringConvertible {
    var width: Int, height: Int, tileWidth: Int, tileHeight: Int, columns: Int, rows: Int, compression: Int

    init(_ level: TIFFPyramid.Level) {
        (width, height, tileWidth, tileHeight) = (level.width, level.height, level.tileWidth, level.tileHeight)
        (columns, rows, compression) = (level.columns, level.rows, level.compression)
    }

    init(_ ifd: PyramidFixtures.IFD) {
        (width, height, tileWidth, tileHeight) = (ifd.width, ifd.height, ifd.tileWidth, ifd.tileHeight)
        columns = (ifd.width + ifd.tileWidth - 1) / ifd.tileWidth
        rows = (ifd.height + ifd.tileHeight - 1) / ifd.tileHeight
        compression = ifd.compression
    }

    var description: String { "\(width)×\(height) in \(columns)×\(rows) tiles of \(tileWidth)×\(tileHeight), compression \(compression)" }
}

extension PyramidFixtures.File {
    /// The IFDs that are the pyramid's levels, chosen from tifffile's account by each layout's rule.
    var levelIFDs: [PyramidFixtures.IFD] {
        if ifds.count > 1, ifds[1].kind == "sub" {
            return [ifds[0]] + ifds.dropFirst().prefix { $0.kind == "sub" }
        }
        if ifds[0].description.hasPrefix("Aperio") {
            return [ifds[0]]
                + ifds.dropFirst().filter {
                    $0.tileWidth > 0 && $0.subfileType == 0 && !$0.description.contains("label") && !$0.description.contains("macro")
                }
        }
        return [ifds[0]] + ifds.dropFirst().filter { $0.tileWidth > 0 && $0.subfileType & 1 == 1 }
    }
}
