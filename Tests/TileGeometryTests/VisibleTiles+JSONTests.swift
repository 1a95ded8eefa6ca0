import Foundation
import TestSupport
import Testing
import TileGeometry

@Suite struct VisibleTilesJSONTests {
    /// Worked by hand: 600×400 → maxLevel 10; zoom 0.5 → level 9 (300×200, one row of two 256-px tiles, frames
    /// 512 px wide); visible [100/0.5, 400/0.5] ∩ [0, 600] = [200, 600] × [0, 300]; centre (400, 150); tile 0's
    /// centre (256, 200) is 23236 away (squared), tile 1's (556, 200) 26836.
    @Test func workedExampleIsExact() throws {
        let pyramid = Pyramid(width: 600, height: 400)
        let answer = try pyramid.visibleTiles(in: Viewport(x: 100, y: -50, width: 300, height: 200, zoomScale: 0.5))
        let expected = """
            {"width":600,"height":400,"tileSize":256,"overlap":0,"maxLevel":10,"level":9,"levelScale":0.5,\
            "levelWidth":300,"levelHeight":200,"visibleRect":{"x":200,"y":0,"width":400,"height":300},"tiles":[\
            {"level":9,"col":0,"row":0,"x":0,"y":0,"width":512,"height":400,"url":"/images/NAME_files/9/0_0.jpg"},\
            {"level":9,"col":1,"row":0,"x":512,"y":0,"width":88,"height":400,"url":"/images/NAME_files/9/1_0.jpg"}]}
            """
        #expect(answer.json { "/images/NAME_files/\($0.level)/\($0.column)_\($0.row).jpg" } == expected)
        let plain = expected.replacingOccurrences(of: #","url":"[^"]*""#, with: "", options: .regularExpression)
        #expect(answer.json() == plain)
    }

    @Test func nothingVisiblePrintsNullAndNoTiles() throws {
        let answer = try Pyramid(width: 10, height: 10, tileSize: 4, overlap: 1).visibleTiles(
            in: Viewport(x: 50, y: 0, width: 5, height: 5, zoomScale: 1))
        #expect(
            answer.json() == """
                {"width":10,"height":10,"tileSize":4,"overlap":1,"maxLevel":4,"level":4,"levelScale":1,"levelWidth":10,\
                "levelHeight":10,"visibleRect":null,"tiles":[]}
                """)
    }

    @Test func randomAnswersParseBackToTheirValuesInKeyOrder() throws {
        var random = SplitMix64(seed: 5)
        for _ in 0..<300 {
            let pyramid = PyramidVisibleTilesPropertyTests.randomPyramid(using: &random)
            let viewport = try PyramidVisibleTilesPropertyTests.randomViewport(of: pyramid, using: &random)
            let answer = try pyramid.visibleTiles(in: viewport)
            let text = answer.json { "t/\($0.column)_\($0.row)" }
            // JSONDecoder, not JSONSerialization: on Linux the latter misreads some doubles by an ulp.
            let parsed = try JSONDecoder().decode(ParsedAnswer.self, from: Data(text.utf8))
            let header = [pyramid.width, pyramid.height, pyramid.tileSize, pyramid.overlap, pyramid.maxLevel, answer.level]
            #expect([parsed.width, parsed.height, parsed.tileSize, parsed.overlap, parsed.maxLevel, parsed.level] == header)
            #expect(parsed.levelScale == answer.levelScale)
            #expect(parsed.levelWidth == answer.levelSize.width && parsed.levelHeight == answer.levelSize.height)
            #expect(parsed.visibleRect.map { [$0.x, $0.y, $0.width, $0.height] } == answer.visibleRect.map { [$0.x, $0.y, $0.width, $0.height] })
            #expect(parsed.tiles.count == answer.tiles.count)
            for (parsedTile, tile) in zip(parsed.tiles, answer.tiles) {
                #expect(parsedTile.numbers == [tile.level, tile.column, tile.row, tile.frame.x, tile.frame.y, tile.frame.width, tile.frame.height])
                #expect(parsedTile.url == "t/\(tile.column)_\(tile.row)")
            }
            let tileKeys = ["level", "col", "row", "x", "y", "width", "height", "url"]
            let rectKeys = answer.visibleRect == nil ? [] : ["x", "y", "width", "height"]
            #expect(Self.keys(in: text) == Self.headerKeys + rectKeys + ["tiles"] + answer.tiles.flatMap { _ in tileKeys })
            #expect(!text.contains(".0,") && !text.contains(".0}") && !text.contains(" "))
        }
    }

    @Test func tinyLevelScalesAndFractionsRoundTrip() throws {
        let pyramid = Pyramid(width: 1 << 31, height: 1000)
        let answer = try pyramid.visibleTiles(in: Viewport(x: 1, y: 2, width: 10, height: 10, zoomScale: 3e-10))
        #expect(answer.level == 0)
        let text = answer.json()
        #expect(text.contains("\"levelScale\":4.656612873077393e-10,"))
        let fractional = try Pyramid(width: 1000, height: 1000).visibleTiles(in: Viewport(x: 1, y: 2, width: 10, height: 10, zoomScale: 3))
        let rect = try #require(try JSONDecoder().decode(ParsedAnswer.self, from: Data(fractional.json().utf8)).visibleRect)
        #expect(rect.x == 1.0 / 3 && rect.width == 11.0 / 3 - 1.0 / 3 && rect.height == 4 - 2.0 / 3)
        #expect(fractional.json().contains("\"x\":0.3333333333333333,"))
    }

    @Test func urlsAreEscaped() throws {
        let answer = try Pyramid(width: 10, height: 10).visibleTiles(in: Viewport(x: 0, y: 0, width: 10, height: 10, zoomScale: 1))
        let nasty = "q\"b\\s/\n\r\t\u{0}\u{1}\u{1F}\u{7F} é 😀 \u{2028}\u{2029} \u{E2}\u{80}"
        let text = answer.json { _ in nasty }
        let parsed = try JSONDecoder().decode(ParsedAnswer.self, from: Data(text.utf8))
        #expect(parsed.tiles.first?.url == nasty)
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 || $0 == "\u{2028}" || $0 == "\u{2029}" })
        #expect(text.contains(#"\u2028\u2029"#) && text.contains(#"\u0000\u0001\u001f"#))
    }

    @Test func prefixURLsEqualClosureURLs() throws {
        var random = SplitMix64(seed: 8)
        for (prefix, suffix) in [("/images/NAME_files/", ".jpg"), ("", ""), ("a\"b\\c\u{1}/é\u{2028}", "?x=\"1\"")] {
            for _ in 0..<50 {
                let pyramid = PyramidVisibleTilesPropertyTests.randomPyramid(using: &random)
                let answer = try pyramid.visibleTiles(in: PyramidVisibleTilesPropertyTests.randomViewport(of: pyramid, using: &random))
                let expected = answer.json { prefix + "\($0.level)/\($0.column)_\($0.row)" + suffix }
                #expect(answer.json(tileURLPrefix: prefix, tileURLSuffix: suffix) == expected)
                let bytes = answer.jsonWriter(tileURLPrefix: prefix, tileURLSuffix: suffix).withBytes { Array($0) }
                #expect(bytes == Array(expected.utf8))
            }
        }
    }

    static let headerKeys = [
        "width", "height", "tileSize", "overlap", "maxLevel", "level", "levelScale", "levelWidth", "levelHeight", "visibleRect",
    ]

    /// The object keys of `text` in order of appearance.
    static func keys(in text: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #""([A-Za-z]+)":"#)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).map { String(text[Range($0.range(at: 1), in: text)!]) }
    }
}

/// The JSON answer, decoded strictly: integers must print as integers.
private struct ParsedAnswer: Decodable {
    struct Rect: Decodable {
        let x, y, width, height: Double
    }

    struct Tile: Decodable {
        let level, col, row, x, y, width, height: Int
        let url: String?

        var numbers: [Int] { [level, col, row, x, y, width, height] }
    }

    let width, height, tileSize, overlap, maxLevel, level: Int
    let levelScale: Double
    let levelWidth, levelHeight: Int
    let visibleRect: Rect?
    let tiles: [Tile]
}
