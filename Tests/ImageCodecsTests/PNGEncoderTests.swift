import ImageCodecs
import TestSupport
import Testing

@Suite struct PNGEncoderTests {
    @Test("A strided tile round-trips exactly", arguments: PixelFormat.allCases, PNGEncoder.Filter.allCases)
    func roundTripsExactly(format: PixelFormat, filter: PNGEncoder.Filter) throws {
        let directory = try TemporaryDirectory()
        let wide = Tiles.noise(width: 64, height: 40, format: format)
        let encoder = try PNGEncoder(filter: filter)
        let encoded = try Tiles.encodeRegion(wide, x: 5, y: 3, width: 37, height: 29, encoder.encode)
        let (header, decoded) = try Tiles.decode(encoded, in: directory)
        #expect(header.bitDepth == 8 && header.pixelFormat == format && !header.interlaced)
        #expect(decoded == Tiles.crop(wide, x: 5, y: 3, width: 37, height: 29))
    }

    @Test("Every compression level round-trips; higher levels are not larger on smooth data", arguments: [0, 1, 6, 9])
    func levels(level: Int) throws {
        let directory = try TemporaryDirectory()
        let image = SmoothImage.make(width: 96, height: 64, format: .rgba)
        let encoded = try PNGEncoder(compressionLevel: level).encode(image)
        #expect(try Tiles.decode(encoded, in: directory).1 == image)
        if level > 0 { #expect(encoded.count < image.bytes.count / 2) }
        if level == 0 { #expect(encoded.count > image.bytes.count) }
    }

    @Test func oneEncoderManyTiles() throws {
        let directory = try TemporaryDirectory()
        let encoder = try PNGEncoder()
        for (index, format) in (PixelFormat.allCases + PixelFormat.allCases.reversed()).enumerated() {
            let image = Tiles.noise(width: 1 + index * 19, height: 1 + index * 7, format: format, seed: UInt64(index))
            #expect(try Tiles.decode(try encoder.encode(image), in: directory).1 == image)
        }
    }

    @Test func rejectsLevelsOutsideZeroToNine() {
        for level in [-1, 10] {
            #expect {
                _ = try PNGEncoder(compressionLevel: level)
            } throws: { error in
                (error as? CodecError)?.description == "PNG compression level must be 0–9, got \(level)"
            }
        }
    }
}
