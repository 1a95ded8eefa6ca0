import CJPEG
import ImageCodecs
import TestSupport
import Testing

/// Damaged files either decode or throw a `CodecError`: never a crash, a hang or a leak.
///
/// Each seed file is cut at hundreds of points and mutated a few thousand times (seeded, so every
/// run tries the same inputs). Mutated files decode with a small pixel limit, as a server would set,
/// so a mutated header cannot ask for gigabytes.
@Suite struct RobustnessTests {
    struct Seed: Sendable, CustomStringConvertible {
        var description: String
        /// Mutated copies tried: fewer for seeds whose every decode builds a colour transform (milliseconds each).
        var mutations = 3000
        var make: @Sendable (TemporaryDirectory) throws -> [UInt8]
    }

    static let seeds: [Seed] = [
        Seed(description: "PNG RGB 8-bit") { _ in try PNGEncoder().encode(SmoothImage.make(width: 48, height: 40)) },
        Seed(description: "PNG palette 4-bit tRNS Adam7") { directory in
            try PNGFixture(colorType: 3, bitDepth: 4, trns: true, interlaced: true, width: 40, height: 30).write(to: directory.file("seed"))
            return try directory.read("seed")
        },
        Seed(description: "PNG gray+alpha 16-bit") { directory in
            try PNGFixture(colorType: 4, bitDepth: 16, trns: false, interlaced: false, width: 30, height: 20).write(to: directory.file("seed"))
            return try directory.read("seed")
        },
        Seed(description: "JPEG baseline 4:2:0") { _ in try JPEGEncoder(quality: 80).encode(SmoothImage.make(width: 64, height: 48)) },
        Seed(description: "JPEG progressive 4:2:0") { directory in
            let image = SmoothImage.make(width: 64, height: 48)
            try JPEGFixture.write(
                pixels: image.bytes, width: 64, height: 48, components: 3, colorSpace: TILER_JPEG_CS_YCBCR, progressive: true,
                to: directory.file("seed"))
            return try directory.read("seed")
        },
        Seed(description: "PNG with iCCP and eXIf", mutations: 600) { _ in
            let png = try PNGEncoder().encode(SmoothImage.make(width: 24, height: 20))
            let exif = PNGChunks.chunk("eXIf", Exif.block(orientation: 6))
            return ColourFixtures.inserting([ColourFixtures.iccpChunk(try ColourFixtures.profile("Gamma5000K")), exif], into: png)
        },
        Seed(description: "JPEG with a profile in two APP2 markers and Exif", mutations: 600) { _ in
            let jpeg = try JPEGEncoder(quality: 80).encode(SmoothImage.make(width: 32, height: 24))
            let profile = try ColourFixtures.profile("Gamma5000K")
            let tagged = ColourFixtures.jpegWithICC(jpeg, profile: profile, piece: profile.count / 2 + 1)
            return ColourFixtures.jpegWithExif(tagged, exif: Exif.block(orientation: 8))
        },
        Seed(description: "JPEG Adobe CMYK") { directory in
            try JPEGFixture.all[10].write(to: directory.file("seed"))
            return try directory.read("seed")
        },
        Seed(description: "TIFF RGB LZW predictor strips") { directory in
            try TIFFFixture(name: "", photometric: 2, samples: 3, bits: 8, compression: TIFFFixture.lzw, predictor: 2).write(
                to: directory.file("seed"))
            return try directory.read("seed")
        },
        Seed(description: "TIFF JPEG YCbCr tiles") { directory in
            try TIFFFixture(name: "", photometric: 2, samples: 3, bits: 8, compression: TIFFFixture.jpeg, tiled: true, jpegYCbCr: true)
                .write(to: directory.file("seed"))
            return try directory.read("seed")
        },
        Seed(description: "BigTIFF RGBA 16-bit Deflate separate tiles") { directory in
            try TIFFFixture(
                name: "", photometric: 2, samples: 4, bits: 16, compression: TIFFFixture.deflate, planar: 2, tiled: true, extra: 1, bigTIFF: true
            ).write(to: directory.file("seed"))
            return try directory.read("seed")
        },
        Seed(description: "WebP lossy RGBA") { _ in try WebPEncoder(quality: 70).encode(SmoothImage.make(width: 48, height: 40, format: .rgba)) },
        Seed(description: "TIFF palette 4-bit PackBits") { directory in
            try TIFFFixture(name: "", photometric: 3, samples: 1, bits: 4, compression: TIFFFixture.packBits).write(to: directory.file("seed"))
            return try directory.read("seed")
        },
        Seed(description: "TIFF bilevel CCITT Group 4") { directory in
            // Fax coding packs the small default picture into a few bytes: a larger page gives the cuts room.
            var fixture = TIFFFixture(name: "", photometric: 0, samples: 1, bits: 1, compression: TIFFFixture.ccittGroup4)
            (fixture.width, fixture.height) = (400, 300)
            try fixture.write(to: directory.file("seed"))
            return try directory.read("seed")
        },
    ]

    static let small = DecodeOptions(maxPixels: 1 << 20)
    static let smallLenient = DecodeOptions(maxPixels: 1 << 20, lenient: true, onWarning: { _ in })

    @Test("Every truncation throws by default and never crashes when lenient", .timeLimit(.minutes(5)), arguments: seeds)
    func truncations(seed: Seed) throws {
        let directory = try TemporaryDirectory()
        let bytes = try seed.make(directory)
        let cuts = Set(Array(0..<min(64, bytes.count)) + stride(from: 0, to: bytes.count, by: max(1, bytes.count / 200)))
        for cut in cuts.sorted() {
            let path = try directory.write(Array(bytes.prefix(cut)), to: "cut")
            #expect(decodeError(path, options: Self.small) != nil, "cut at \(cut) of \(bytes.count) decoded without error")
            _ = decodeError(path, options: Self.smallLenient)
        }
        #expect(cuts.count >= 200)
    }

    @Test("Random byte mutations decode or throw", .timeLimit(.minutes(5)), arguments: seeds)
    func mutations(seed: Seed) throws {
        let directory = try TemporaryDirectory()
        let original = try seed.make(directory)
        var random = SplitMix64(seed: UInt64(original.count))
        var outcomes = (decoded: 0, threw: 0)
        for _ in 0..<seed.mutations {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                bytes[index] = Bool.random(using: &random) ? UInt8.random(in: 0...255, using: &random) : bytes[index] ^ 1 << (index % 8)
            }
            let path = try directory.write(bytes, to: "mutant")
            for options in [Self.small, Self.smallLenient] {
                if decodeError(path, options: options) == nil { outcomes.decoded += 1 } else { outcomes.threw += 1 }
            }
        }
        // Both outcomes occur: the mutations reach the pixel data, and the checks catch damage.
        #expect(outcomes.decoded > 0 && outcomes.threw > 0, "\(outcomes)")
    }
}
