import ImageCodecs
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A TIFF's ICC profile (tag 34675) and CMYK go through the same colour path as JPEG's and PNG's.
@Suite struct TIFFColourTests {
    /// colord-data's profile whose red and green primaries are exchanged: ignoring it shows at once.
    static let swapped = "/usr/share/color/icc/colord/SwappedRedAndGreen.icc"

    func decode(_ fixture: TIFFFixture, icc: [UInt8]?, options: DecodeOptions = .init()) throws -> (ImageHeader, PixelBuffer) {
        let directory = try TemporaryDirectory()
        let path = directory.file("tagged.tif")
        try fixture.write(to: path, icc: icc)
        return (try ImageDecoder.readHeader(path: path, options: options), try ImageDecoder.decode(path: path, options: options))
    }

    func swappedProfile() throws -> [UInt8] { try [UInt8](contentsOfFile: Self.swapped) }

    @Test(
        "An RGB profile converts 8- and 16-bit, contiguous and separate, to sRGB",
        arguments: [
            TIFFFixture(name: "RGB 8-bit", photometric: 2, samples: 3, bits: 8, compression: TIFFFixture.lzw),
            TIFFFixture(name: "RGB 16-bit separate", photometric: 2, samples: 3, bits: 16, planar: 2),
            TIFFFixture(name: "RGBA 16-bit associated tiles", photometric: 2, samples: 4, bits: 16, tiled: true, extra: 1),
            TIFFFixture(name: "palette 8-bit", photometric: 3, samples: 1, bits: 8),
        ])
    func profileIsApplied(fixture: TIFFFixture) throws {
        let (header, converted) = try decode(fixture, icc: try swappedProfile())
        let (_, plain) = try decode(fixture, icc: nil)
        #expect(header.colourConversion?.hasSuffix("→ sRGB") == true, "\(String(describing: header.colourConversion))")
        let channels = converted.pixelFormat.channels
        #expect(converted.pixelFormat == plain.pixelFormat)
        var largest = 0
        for pixel in 0..<converted.width * converted.height {
            let at = pixel * channels
            // Red and green exchanged, blue and alpha as they were (within lcms's rounding).
            largest = max(largest, abs(Int(converted.bytes[at]) - Int(plain.bytes[at + 1])), abs(Int(converted.bytes[at + 1]) - Int(plain.bytes[at])))
            largest = max(largest, abs(Int(converted.bytes[at + 2]) - Int(plain.bytes[at + 2])))
            if channels == 4 { largest = max(largest, abs(Int(converted.bytes[at + 3]) - Int(plain.bytes[at + 3]))) }
        }
        #expect(largest <= 3, "largest difference \(largest)")
    }

    @Test func keepColourLeavesTheNumbers() throws {
        let fixture = TIFFFixture(name: "RGB 8-bit", photometric: 2, samples: 3, bits: 8)
        let (header, kept) = try decode(fixture, icc: try swappedProfile(), options: DecodeOptions(colour: .keep))
        let (_, plain) = try decode(fixture, icc: nil)
        #expect(header.colourConversion == nil)
        #expect(kept.bytes == plain.bytes)
    }

    @Test func aProfileForAnotherModelIsAWarningOrAnErrorWhenStrict() throws {
        let gray = TIFFFixture(name: "gray", photometric: 1, samples: 1, bits: 8)
        let warnings = WarningLog()
        var options = warnings.lenientOptions
        options.lenient = false
        let (_, decoded) = try decode(gray, icc: try swappedProfile(), options: options)
        #expect(decoded.pixelFormat == .gray)
        #expect(warnings.lines.contains { $0.contains("colour profile ignored") }, "\(warnings.lines)")
        let directory = try TemporaryDirectory()
        let path = directory.file("strict.tif")
        try gray.write(to: path, icc: try swappedProfile())
        #expect(decodeError(path, options: DecodeOptions(colour: .strict))?.kind == .badColourProfile)
    }

    @Test func cmykWithoutAProfileSaysWhichConversionWasUsed() throws {
        let warnings = WarningLog()
        let (header, decoded) = try decode(TIFFFixture(name: "CMYK", photometric: 5, samples: 4, bits: 8), icc: nil, options: warnings.lenientOptions)
        #expect(header.colourConversion == "CMYK → RGB, uncalibrated formula")
        #expect(decoded.pixelFormat == .rgb)
        #expect(warnings.lines.contains { $0.contains("uncalibrated formula") }, "\(warnings.lines)")
    }
}

extension [UInt8] {
    /// The bytes of the file at `path`.
    init(contentsOfFile path: String) throws {
        guard let file = fopen(path, "rb") else { throw FixtureError(message: "cannot open \(path) (scripts/setup installs colord-data)") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        self = bytes
    }
}
