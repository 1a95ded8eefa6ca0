import Foundation
import ImageCodecs
import Synchronization
import TestSupport
import Testing

/// Stored tiles: pass-through JPEG bytes are the stored tile merged with JPEGTables and decode to exactly the pixels
/// decodeTile gives; lossless tiles decode to the source picture; RGB-stored JPEG gets the Adobe marker; many threads
/// may read one file at once.
@Suite struct TIFFPyramidTileTests {
    static let adobeRGB: [UInt8] = [0xFF, 0xEE, 0x00, 0x0E, 0x41, 0x64, 0x6F, 0x62, 0x65, 0x00, 0x64, 0, 0, 0, 0, 0]

    @Test(arguments: ["vips-jpeg.tif", "vips-subifd.tif", "vips-big.tif", "aperio.svs", "aperio-big.svs"])
    func passThroughIsTheStoredTileAndDecodesToTheDecodedTile(name: String) throws {
        let fixtures = try PyramidFixtures.shared()
        let pyramid = try TIFFPyramid(path: fixtures.path(name))
        let file = try fixtures.bytes(name)
        let ifds = try #require(fixtures.catalog[name]).levelIFDs
        let scratch = try TemporaryDirectory()
        for (index, level) in pyramid.levels.enumerated() {
            let tables = ifds[index].tables
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    let jpeg = try pyramid.jpegTile(level: index, column: column, row: row)
                    let (offset, count) = (ifds[index].offsets[row * level.columns + column], ifds[index].counts[row * level.columns + column])
                    let stored = Array(file[offset..<offset + count])
                    // vips: JPEGTables (SOI, DQT, DHT, EOI) without EOI + the abbreviated tile without SOI; the SVS tiles are whole JPEGs.
                    #expect(jpeg == (tables.isEmpty ? stored : Array(tables.dropLast(2)) + stored.dropFirst(2)), "\(name) \(index)/\(column)_\(row)")
                    #expect(jpeg.starts(with: [0xFF, 0xD8]))
                    let region = try pyramid.jpegTileRegion(level: index, column: column, row: row)
                    #expect(region.prefix + file[region.offset..<region.offset + region.length] == jpeg, "sent from the file, the same bytes")
                    #expect(tables.isEmpty || jpeg.firstRange(of: tables.dropFirst(2).dropLast(2)) != nil)
                    #expect(jpeg.firstRange(of: Self.adobeRGB.prefix(9)) == nil)
                    let (header, decoded) = try Tiles.decode(jpeg, in: scratch)
                    #expect(header.width == level.tileWidth && header.height == level.tileHeight)
                    #expect(decoded.bytes == (try pyramid.decodeTile(level: index, column: column, row: row)), "\(name) \(index)/\(column)_\(row)")
                }
            }
        }
    }

    /// Pillow (another program's libjpeg setup) reads the pass-through bytes as the same pixels.
    @Test(arguments: ["vips-jpeg.tif", "aperio.svs"])
    func pillowAgrees(name: String) throws {
        let fixtures = try PyramidFixtures.shared()
        let pyramid = try TIFFPyramid(path: fixtures.path(name))
        let scratch = try TemporaryDirectory()
        let path = try scratch.write(try pyramid.jpegTile(level: 0, column: 1, row: 1), to: "tile.jpg")
        let script = "import sys; from PIL import Image; sys.stdout.buffer.write(Image.open(sys.argv[1]).convert('RGB').tobytes())"
        let pillow = try PyramidFixtures.run("/usr/bin/python3", ["-c", script, path])
        #expect([UInt8](pillow) == (try pyramid.decodeTile(level: 0, column: 1, row: 1)))
    }

    @Test(arguments: ["vips-deflate-512.tif", "vips-big-subifd-deflate.tif", "image.ome.tif"])
    func losslessTilesAreTheSourcePixels(name: String) throws {
        let fixtures = try PyramidFixtures.shared()
        let pyramid = try TIFFPyramid(path: fixtures.path(name))
        let level = pyramid.levels[0]
        let source = fixtures.source
        for row in 0..<level.rows {
            for column in 0..<level.columns {
                let tile = try pyramid.decodeTile(level: 0, column: column, row: row)
                let (x, y) = (column * level.tileWidth, row * level.tileHeight)
                let (width, height) = (min(level.tileWidth, level.width - x), min(level.tileHeight, level.height - y))
                let expected = Tiles.crop(source, x: x, y: y, width: width, height: height).bytes
                let actual = (0..<height).flatMap { line in tile[line * level.tileWidth * 3..<(line * level.tileWidth + width) * 3] }
                #expect(actual == expected, "\(name) tile \(column)_\(row)")
            }
        }
        for index in pyramid.levels.indices.dropFirst() {
            _ = try pyramid.decodeTile(level: index, column: 0, row: 0)
            #expect(pyramid.levels[index].jpegPassThrough == false)
        }
    }

    @Test func rgbStoredJPEGGetsTheAdobeMarker() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("rgb.tif")
        try TIFFPyramidTests.tiled("rgb", compression: 7).write(to: path, pages: [TIFFPyramidTests.tiled("small", compression: 7, reduced: true)])
        let pyramid = try TIFFPyramid(path: path)
        #expect(pyramid.levels.map(\.jpegStoresRGB) == [true, true])
        for (index, level) in pyramid.levels.enumerated() {
            for row in 0..<level.rows {
                for column in 0..<level.columns {
                    let jpeg = try pyramid.jpegTile(level: index, column: column, row: row)
                    #expect(Array(jpeg.prefix(18)) == [0xFF, 0xD8] + Self.adobeRGB)
                    let region = try pyramid.jpegTileRegion(level: index, column: column, row: row)
                    #expect(region.prefix.starts(with: [0xFF, 0xD8] + Self.adobeRGB) && jpeg.starts(with: region.prefix))
                    let (_, decoded) = try Tiles.decode(jpeg, in: directory)
                    #expect(decoded.bytes == (try pyramid.decodeTile(level: index, column: column, row: row)))
                }
            }
        }
    }

    /// Gray + alpha becomes RGBA, min-is-white is inverted, associated alpha is undone.
    @Test func samplesAreDeliveredAsGrayRGBOrRGBA() throws {
        let directory = try TemporaryDirectory()
        let cases: [(TIFFFixture, channels: Int, tolerance: Int)] = [
            (TIFFFixture(name: "ga", photometric: 1, samples: 2, bits: 8, compression: 8, tiled: true, extra: 2), 4, 0),
            (TIFFFixture(name: "white", photometric: 0, samples: 1, bits: 8, compression: 5, tiled: true), 1, 0),
            (TIFFFixture(name: "premultiplied", photometric: 2, samples: 4, bits: 8, compression: 8, tiled: true, extra: 1), 4, 2),
        ]
        for (fixture, channels, tolerance) in cases {
            var small = fixture
            (small.width, small.height, small.reduced) = (23, 19, true)
            try fixture.write(to: directory.file(fixture.name + ".tif"), pages: [small])
            let pyramid = try TIFFPyramid(path: directory.file(fixture.name + ".tif"))
            #expect(pyramid.levels[0].channels == channels)
            let tile = try pyramid.decodeTile(level: 0, column: 1, row: 1)
            for (y, x) in [(16, 16), (20, 25), (31, 31)] {
                let at = ((y - 16) * 16 + (x - 16)) * channels
                let value = { (s: Int) in fixture.sample(x: x, y: y, s: s) }
                let expected: [Int] =
                    switch fixture.name {
                    case "ga": [value(0), value(0), value(0), value(1)]
                    case "white": [255 - value(0)]
                    default: (0..<4).map(value)
                    }
                let actual = tile[at..<at + channels].map(Int.init)
                #expect(zip(actual, expected).allSatisfy { abs($0 - $1) <= tolerance }, "\(fixture.name) at \(x),\(y): \(actual) vs \(expected)")
            }
        }
    }

    @Test func manyThreadsReadOneFileAtOnce() throws {
        let fixtures = try PyramidFixtures.shared()
        for name in ["vips-jpeg.tif", "vips-deflate-512.tif", "vips-subifd.tif", "image.ome.tif", "aperio-big.svs"] {
            let pyramid = try TIFFPyramid(path: fixtures.path(name))
            let tiles = pyramid.levels.indices.flatMap { l in
                (0..<pyramid.levels[l].rows).flatMap { r in (0..<pyramid.levels[l].columns).map { c in [l, c, r] } }
            }
            let serial = try tiles.map { try pyramid.decodeTile(level: $0[0], column: $0[1], row: $0[2]) }
            let mismatches = Mutex(0)
            DispatchQueue.concurrentPerform(iterations: 8) { worker in
                for step in 0..<tiles.count * 2 {
                    let index = (step * 7 + worker * 5) % tiles.count
                    let t = tiles[index]
                    let decoded = try? pyramid.decodeTile(level: t[0], column: t[1], row: t[2])
                    let jpegOK = !pyramid.levels[t[0]].jpegPassThrough || (try? pyramid.jpegTile(level: t[0], column: t[1], row: t[2])) != nil
                    if decoded != serial[index] || !jpegOK { mismatches.withLock { $0 += 1 } }
                }
            }
            #expect(mismatches.withLock { $0 } == 0, "\(name)")
        }
    }

    @Test func requestsOutsideThePyramidAreInvalid() throws {
        let fixtures = try PyramidFixtures.shared()
        let pyramid = try TIFFPyramid(path: fixtures.path("vips-deflate-512.tif"))
        let cases: [(Int, Int, Int)] = [(2, 0, 0), (-1, 0, 0), (0, 2, 0), (0, 0, 2), (1, -1, 0)]
        for (level, column, row) in cases {
            let error = pyramidError { _ = try pyramid.decodeTile(level: level, column: column, row: row) }
            #expect(error?.kind == .invalidArgument)
            #expect(error?.reason == "no tile (\(column), \(row)) in level \(level)")
        }
        let notJPEG = pyramidError { _ = try pyramid.jpegTile(level: 0, column: 0, row: 0) }
        #expect(notJPEG?.kind == .invalidArgument)
        #expect(notJPEG?.reason == "level 0 does not store JPEG tiles that can be passed through")
    }
}
