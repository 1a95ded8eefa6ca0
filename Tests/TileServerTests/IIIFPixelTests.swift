import Foundation
import ImageCodecs
import Testing
import TileGeometry
import TileServer

/// The pixels of rendered IIIF images: regions scaled from the pyramid's levels compared with the same region
/// area-averaged from the source picture, enlargement against bilinear interpolation, rotations and mirroring as
/// exact permutations, and the qualities.
@Suite struct IIIFPixelTests {
    static let source = TestPicture.make(width: 700, height: 500)

    static func fixture() throws -> PyramidFixture {
        let fixture = try PyramidFixture()
        try fixture.addImagePyramid("photo", image: source, tileSize: 128, format: "png")
        return fixture
    }

    /// Fetches `path` of `photo` and decodes it.
    static func image(_ server: InProcessServer, _ path: String) async throws -> PixelBuffer {
        let response = try await fetch(server, "/iiif/3/photo/\(path)")
        guard response.status == 200 else { throw RawClientError(description: "\(path): \(response.status) \(response.text)") }
        return try TestPicture.decode(response.body)
    }

    @Test func scaledRegionsMatchTheSourceAreaAveraged() async throws {
        // (request, region in source pixels, output size, largest mean absolute difference allowed)
        let cases: [(String, PixelRect, Int, Int, Double)] = [
            ("full/max", PixelRect(x: 0, y: 0, width: 700, height: 500), 700, 500, 0.0),
            ("125,15,120,140/max", PixelRect(x: 125, y: 15, width: 120, height: 140), 120, 140, 0.0),
            ("full/!300,300", PixelRect(x: 0, y: 0, width: 700, height: 500), 300, 214, 1.2),
            ("pct:10,10,60,70/111,", PixelRect(x: 70, y: 50, width: 420, height: 350), 111, 93, 1.2),
            ("33,47,517,389/97,201", PixelRect(x: 33, y: 47, width: 517, height: 389), 97, 201, 1.2),
            ("square/pct:37", PixelRect(x: 100, y: 0, width: 500, height: 500), 185, 185, 1.2),
            // 100 × 100 pixels per output pixel, read from the level shrunk 64 times: each output pixel covers 1.56
            // level pixels, and the partly covered ones stand for their whole 64 × 64 block of hard-edged detail.
            ("full/7,5", PixelRect(x: 0, y: 0, width: 700, height: 500), 7, 5, 4.0),
            ("250,130,300,300/299,", PixelRect(x: 250, y: 130, width: 300, height: 300), 299, 299, 1.2),
        ]
        try await withInProcessServer(try Self.fixture()) { server in
            for (path, region, width, height, tolerance) in cases {
                let pixels = try await Self.image(server, path + "/0/default.png")
                #expect(pixels.width == width && pixels.height == height && pixels.pixelFormat == .rgb, "\(path)")
                let reference = TestPicture.areaAverage(Self.source, region: region, width: width, height: height)
                let difference = TestPicture.meanAbsoluteDifference(pixels, reference)
                #expect(difference <= tolerance, "\(path): mean absolute difference \(difference)")
            }
        }
    }

    @Test func jpegOutputIsCloseToo() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            let pixels = try await Self.image(server, "200,100,400,300/200,/0/default.jpg")
            #expect(pixels.width == 200 && pixels.height == 150)
            let reference = TestPicture.areaAverage(Self.source, region: PixelRect(x: 200, y: 100, width: 400, height: 300), width: 200, height: 150)
            #expect(TestPicture.meanAbsoluteDifference(pixels, reference) < 4)
        }
    }

    @Test func webpOutputIsCloseAndSaysItIsWebP() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            let response = try await fetch(server, "/iiif/3/photo/200,100,400,300/200,/0/default.webp")
            #expect(response.status == 200 && response.header("Content-Type") == "image/webp")
            let pixels = try WebPDecoder.decode(response.body)
            #expect(pixels.width == 200 && pixels.height == 150)
            let reference = TestPicture.areaAverage(Self.source, region: PixelRect(x: 200, y: 100, width: 400, height: 300), width: 200, height: 150)
            #expect(TestPicture.meanAbsoluteDifference(pixels, reference) < 4)
        }
    }

    @Test func enlargingInterpolatesLinearly() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            let pixels = try await Self.image(server, "100,100,50,40/^200,160/0/default.png")
            #expect(pixels.width == 200 && pixels.height == 160)
            var total = 0.0
            for y in 0..<160 {
                for x in 0..<200 {
                    for c in 0..<3 {
                        let expected = Self.bilinear(x: 100 + (Double(x) + 0.5) / 4 - 0.5, y: 100 + (Double(y) + 0.5) / 4 - 0.5, channel: c)
                        total += abs(Double(pixels.bytes[(y * 200 + x) * 3 + c]) - expected)
                    }
                }
            }
            #expect(total / Double(200 * 160 * 3) < 0.6)
        }
    }

    /// The source sampled at (`x`, `y`) (pixel centres at integers), clamped to the 50 × 40 region at (100, 100).
    static func bilinear(x: Double, y: Double, channel: Int) -> Double {
        let x = min(max(x, 100), 149)
        let y = min(max(y, 100), 139)
        let x0 = Int(x)
        let y0 = Int(y)
        let (fx, fy) = (x - Double(x0), y - Double(y0))
        func at(_ px: Int, _ py: Int) -> Double { Double(source.bytes[(min(py, 139) * 700 + min(px, 149)) * 3 + channel]) }
        return (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy
    }

    @Test func rotationsAndMirroringPermutePixelsExactly() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            let base = try await Self.image(server, "40,30,300,200/151,/0/default.png")
            #expect(base.width == 151 && base.height == 101)
            // Where output pixel (x, y) comes from in the unrotated image, for each rotation.
            let cases: [(String, Bool, (Int, Int) -> (Int, Int))] = [
                ("90", true, { x, y in (y, 100 - x) }), ("180", false, { x, y in (150 - x, 100 - y) }),
                ("270", true, { x, y in (150 - y, x) }), ("!0", false, { x, y in (150 - x, y) }),
                ("!90", true, { x, y in (150 - y, 100 - x) }), ("!180", false, { x, y in (x, 100 - y) }),
            ]
            for (rotation, swaps, source) in cases {
                let rotated = try await Self.image(server, "40,30,300,200/151,/\(rotation)/default.png")
                #expect((rotated.width, rotated.height) == (swaps ? (101, 151) : (151, 101)), "\(rotation)")
                var mismatches = 0
                for y in 0..<rotated.height {
                    for x in 0..<rotated.width {
                        let (sx, sy) = source(x, y)
                        let p = (y * rotated.width + x) * 3
                        let q = (sy * 151 + sx) * 3
                        if rotated.bytes[p..<p + 3] != base.bytes[q..<q + 3] { mismatches += 1 }
                    }
                }
                #expect(mismatches == 0, "\(rotation): \(mismatches) pixels differ")
            }
        }
    }

    @Test func grayIsLuminanceAndBitonalIsItsThreshold() async throws {
        try await withInProcessServer(try Self.fixture()) { server in
            let color = try await Self.image(server, "full/350,/0/color.png")
            let gray = try await Self.image(server, "full/350,/0/gray.png")
            let bitonal = try await Self.image(server, "full/350,/0/bitonal.png")
            #expect(color.pixelFormat == .rgb && gray.pixelFormat == .gray && bitonal.pixelFormat == .gray)
            #expect(color == (try await Self.image(server, "full/350,/0/default.png")))
            for i in 0..<(350 * 250) {
                let (r, g, b) = (Double(color.bytes[3 * i]), Double(color.bytes[3 * i + 1]), Double(color.bytes[3 * i + 2]))
                #expect(abs(Double(gray.bytes[i]) - (0.299 * r + 0.587 * g + 0.114 * b)) <= 1)
                #expect(bitonal.bytes[i] == (gray.bytes[i] >= 128 ? 255 : 0))
            }
            let grayJPEG = try await Self.image(server, "full/100,/0/gray.jpg")
            #expect(grayJPEG.pixelFormat == .gray)
        }
    }

    @Test func pyramidsWithOverlapRenderTheSamePixels() async throws {
        let fixture = try PyramidFixture()
        try fixture.addImagePyramid("plain", image: Self.source, tileSize: 128, format: "png")
        try fixture.addImagePyramid("overlapping", image: Self.source, tileSize: 128, overlap: 3, format: "png")
        try await withInProcessServer(fixture) { server in
            for path in ["full/max/0/default.png", "100,90,400,300/150,/0/default.png", "0,0,128,128/128,128/0/default.png"] {
                let plain = try await fetch(server, "/iiif/3/plain/\(path)")
                let overlapping = try await fetch(server, "/iiif/3/overlapping/\(path)")
                #expect(overlapping.status == 200 && overlapping.header("X-Cache") == nil, "\(path)")
                #expect(try TestPicture.decode(overlapping.body) == (try TestPicture.decode(plain.body)), "\(path)")
            }
        }
    }

    @Test func grayPyramidsComeBackInColorWhenAskedAndAlphaIsKept() async throws {
        let fixture = try PyramidFixture()
        try fixture.addImagePyramid("mono", image: TestPicture.make(width: 90, height: 70, channels: 1), tileSize: 64)
        try fixture.addImagePyramid("clear", image: TestPicture.make(width: 90, height: 70, channels: 4), tileSize: 64)
        try await withInProcessServer(fixture) { server in
            let mono = try TestPicture.decode(try await fetch(server, "/iiif/3/mono/full/max/0/default.png").body)
            #expect(mono.pixelFormat == .gray)
            let color = try TestPicture.decode(try await fetch(server, "/iiif/3/mono/full/max/0/color.png").body)
            #expect(color.pixelFormat == .rgb)
            for i in 0..<(90 * 70) {
                #expect(color.bytes[3 * i] == mono.bytes[i] && color.bytes[3 * i + 1] == mono.bytes[i] && color.bytes[3 * i + 2] == mono.bytes[i])
            }
            let rgba = try TestPicture.decode(try await fetch(server, "/iiif/3/clear/full/45,/0/default.png").body)
            #expect(rgba.pixelFormat == .rgba && rgba.width == 45 && rgba.height == 35)
            let grayAlpha = try TestPicture.decode(try await fetch(server, "/iiif/3/clear/full/45,/0/gray.png").body)
            #expect(grayAlpha.pixelFormat == .grayAlpha)
            let jpeg = try TestPicture.decode(try await fetch(server, "/iiif/3/clear/full/45,/0/default.jpg").body)
            #expect(jpeg.pixelFormat == .rgb)
        }
    }
}
