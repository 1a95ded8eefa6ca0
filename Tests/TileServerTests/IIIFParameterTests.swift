import Testing
import TileGeometry

@testable import HTTPCore
@testable import Rendering
@testable import TileServer
@testable import TileSources

/// The IIIF image request parameters (Image API 3.0 §4): every form of region, size, rotation, quality and format,
/// resolved against a 700 × 500 image, and the status of every kind of error.
@Suite struct IIIFParameterTests {
    static let limits = IIIFLimits(maxWidth: 4000, maxHeight: 3000, maxArea: 6_000_000)

    /// Resolves `region/size/rotation/qualityAndFormat` against a 700 × 500 image with ``limits``.
    static func resolve(_ path: String, width: Int = 700, height: Int = 500) throws(RequestError) -> IIIFImageRequest {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        precondition(parts.count == 4)
        return try IIIFImageRequest(
            region: parts[0], size: parts[1], rotation: parts[2], qualityAndFormat: parts[3], imageWidth: width, imageHeight: height,
            limits: limits)
    }

    /// The status `path` fails with, or `nil` if it resolves.
    static func status(_ path: String) -> Int? {
        do {
            _ = try resolve(path)
            return nil
        } catch {
            return error.status.rawValue
        }
    }

    @Test(arguments: [
        ("full", PixelRect(x: 0, y: 0, width: 700, height: 500)),
        ("square", PixelRect(x: 100, y: 0, width: 500, height: 500)),
        ("125,15,120,140", PixelRect(x: 125, y: 15, width: 120, height: 140)),
        ("600,400,200,200", PixelRect(x: 600, y: 400, width: 100, height: 100)),
        ("0,0,0700,500", PixelRect(x: 0, y: 0, width: 700, height: 500)),
        ("pct:10,20,50,50", PixelRect(x: 70, y: 100, width: 350, height: 250)),
        ("pct:41.6,7.5,40,70", PixelRect(x: 291, y: 38, width: 280, height: 350)),
        ("pct:90,90,50,50", PixelRect(x: 630, y: 450, width: 70, height: 50)),
        ("pct:0,0,0.01,0.01", PixelRect(x: 0, y: 0, width: 1, height: 1)),
    ])
    func regionForms(region: String, expected: PixelRect) throws {
        #expect(try Self.resolve("\(region)/max/0/default.jpg").region == expected)
    }

    @Test(arguments: [
        "", "abc", "1,2,3", "1,2,3,4,5", "-1,0,10,10", "1.5,0,10,10", "pct:1,2,3", "pct:a,b,c,d", "pct:-1,0,10,10", "pct:1e2,0,1,1",
        "0,0,0,10", "0,0,10,0", "700,0,10,10", "0,500,10,10", "pct:100,0,10,10", "pct:0,0,0,10", "Full", "full ", "99999999999,0,1,1",
    ])
    func malformedEmptyOrOutsideRegionsAre400(region: String) {
        #expect(Self.status("\(region)/max/0/default.jpg") == 400)
    }

    @Test(arguments: [
        ("max", 700, 500), ("^max", 2898, 2070), ("350,", 350, 250), (",250", 350, 250), ("pct:50", 350, 250), ("pct:100", 700, 500),
        ("200,100", 200, 100), ("700,500", 700, 500), ("!350,350", 350, 250), ("!700,100", 140, 100), ("!700,500", 700, 500),
        ("^1400,", 1400, 1000), ("^,1000", 1400, 1000), ("^1400,600", 1400, 600), ("^pct:150", 1050, 750), ("^!1400,1400", 1400, 1000),
        ("^!10000,10000", 2898, 2070), ("^350,", 350, 250), ("^!350,350", 350, 250), ("1,", 1, 1), ("699,", 699, 499),
    ])
    func sizeForms(size: String, width: Int, height: Int) throws {
        let request = try Self.resolve("full/\(size)/0/default.jpg")
        #expect(request.width == width && request.height == height, "\(size) → \(request.width)×\(request.height)")
    }

    @Test(arguments: [
        "full", "^full", "", ",", "abc", "pct:", "pct:x", "!350,", "!,350", "^", "^^max", "-5,", "5,-5", "1.5,", "max,", "pct:50,",
        "701,", ",501", "701,500", "pct:100.1", "!701,501", "0,", ",0", "0,10", "pct:0", "pct:0.01", "!0,10",
        "^4001,", "^,3001", "^4000,3000", "^pct:1000",
    ])
    func malformedEnlargingEmptyOrOverLimitSizesAre400(size: String) {
        #expect(Self.status("full/\(size)/0/default.jpg") == 400)
    }

    @Test func maxIsFittedToTheLimitsAndCheckedSizesAreNot() throws {
        let small = IIIFLimits(maxWidth: 300, maxHeight: 300, maxArea: 50_000)
        let region = PixelRect(x: 0, y: 0, width: 700, height: 500)
        let max = try IIIFSize(parsing: "max").resolve(region: region, limits: small)
        #expect(max.width <= 300 && max.height <= 300 && max.width * max.height <= 50_000)
        #expect(abs(Double(max.width) / Double(max.height) - 1.4) < 0.02)
        let confined = try IIIFSize(parsing: "!600,600").resolve(region: region, limits: small)
        #expect(confined.width <= 300 && confined.width * confined.height <= 50_000)
        #expect(throws: RequestError.self) { try IIIFSize(parsing: "301,").resolve(region: region, limits: small) }
        #expect(throws: RequestError.self) { try IIIFSize(parsing: "250,250").resolve(region: region, limits: small) }
        #expect(try IIIFSize(parsing: "250,200").resolve(region: region, limits: small) == (250, 200))
    }

    @Test(arguments: [
        ("0", false, 0), ("90", false, 1), ("180", false, 2), ("270", false, 3), ("360", false, 0), ("!0", true, 0), ("!90", true, 1),
        ("!270", true, 3), ("90.0", false, 1), ("0180", false, 2),
    ])
    func rotationsByNinetyAndMirroring(rotation: String, mirrored: Bool, turns: Int) throws {
        let request = try Self.resolve("full/max/\(rotation)/default.jpg")
        #expect(request.mirrored == mirrored && request.quarterTurns == turns)
        #expect(request.outputWidth == (turns % 2 == 0 ? 700 : 500))
    }

    @Test(arguments: ["22.5", "1", "359.9", "!45", "0.5"])
    func otherAnglesAre501(rotation: String) {
        #expect(Self.status("full/max/\(rotation)/default.jpg") == 501)
    }

    @Test(arguments: ["361", "-90", "abc", "!", "!!90", "9 0", "+90", "1e2", "", ".5.5", "nan", "inf"])
    func malformedOrOutOfRangeRotationsAre400(rotation: String) {
        #expect(Self.status("full/max/\(rotation)/default.jpg") == 400, "\(rotation)")
    }

    @Test func qualitiesAndFormats() throws {
        for quality in IIIFQuality.allCases {
            for format in IIIFFormat.allCases {
                let request = try Self.resolve("full/max/0/\(quality.rawValue).\(format.rawValue)")
                #expect(request.quality == quality && request.format == format)
            }
        }
        for text in ["grey.jpg", "native.jpg", "Default.jpg", "default", "default.", ".jpg", "default.jpg.png", "default.JPG", "default.xyz"] {
            #expect(Self.status("full/max/0/\(text)") == 400, "\(text)")
        }
        for format in ["tif", "gif", "jp2", "pdf"] {
            #expect(Self.status("full/max/0/default.\(format)") == 501, "\(format)")
        }
    }

    @Test func malformedSyntaxWinsOverUnimplementedFeatures() {
        #expect(Self.status("full/max/22.5/grey.jpg") == 400)
        #expect(Self.status("full/bad/0/default.gif") == 400)
        #expect(Self.status("nope/max/45/default.jpg") == 400)
    }

    @Test(arguments: [
        ("full/max/0/default.jpg", "full/max/0/default.jpg"),
        ("0,0,700,500/700,500/360/default.jpg", "full/max/0/default.jpg"),
        ("square/max/0/gray.png", "100,0,500,500/max/0/gray.png"),
        ("pct:10,20,50,50/175,/!90/color.jpg", "70,100,350,250/175,125/!90/color.jpg"),
        ("full/^max/0/default.jpg", "full/^max/0/default.jpg"),
        ("full/^1400,/180/bitonal.png", "full/^1400,1000/180/bitonal.png"),
        ("full/pct:100/0/default.jpg", "full/max/0/default.jpg"),
        ("600,400,200,200/50,/0/default.jpg", "600,400,100,100/50,50/0/default.jpg"),
        ("full/!350,350/270.0/default.jpg", "full/350,250/270/default.jpg"),
    ])
    func canonicalParameters(path: String, canonical: String) throws {
        #expect(try Self.resolve(path).canonicalParameters == canonical)
    }

    @Test func storedTilesAreRecognisedAtEveryLevelAndNothingElse() throws {
        let pyramid = Pyramid(width: 700, height: 500, tileSize: 128)
        for level in 0...pyramid.maxLevel {
            let grid = pyramid.grid(level)
            for column in 0..<grid.columns {
                for row in 0..<grid.rows {
                    let frame = pyramid.tileFrame(level: level, column: column, row: row)
                    let tile = pyramid.tileRect(level: level, column: column, row: row)
                    let path = "\(frame.x),\(frame.y),\(frame.width),\(frame.height)/\(tile.width),\(tile.height)/0/default.png"
                    let request = try Self.resolve(path)
                    #expect(request.storedTile(in: pyramid, tileFormat: .png) == TileAddress(level: level, column: column, row: row))
                    #expect(request.storedTile(in: pyramid, tileFormat: .jpg) == nil)
                }
            }
        }
        let notTiles = [
            "full/max/0/default.png", "0,0,128,128/128,128/90/default.png", "0,0,128,128/128,128/!0/default.png",
            "0,0,128,128/128,128/0/color.png", "1,0,128,128/128,128/0/default.png", "0,0,128,128/127,127/0/default.png",
            "0,0,256,256/64,64/0/default.png",
        ]
        for path in notTiles {
            #expect(try Self.resolve(path).storedTile(in: pyramid, tileFormat: .png) == nil, "\(path)")
        }
        let small = Pyramid(width: 100, height: 80, tileSize: 128)
        let whole = try Self.resolve("full/max/0/default.png", width: 100, height: 80)
        #expect(whole.storedTile(in: small, tileFormat: .png) == TileAddress(level: small.maxLevel, column: 0, row: 0))
        let level5 = try Self.resolve("full/50,40/0/default.png", width: 100, height: 80)
        #expect(level5.storedTile(in: small, tileFormat: .png) == TileAddress(level: small.maxLevel - 1, column: 0, row: 0))
        let overlapping = Pyramid(width: 700, height: 500, tileSize: 128, overlap: 1)
        #expect(try Self.resolve("0,0,128,128/128,128/0/default.png").storedTile(in: overlapping, tileFormat: .png) == nil)
    }
}
