import CLCMS
import Foundation
import ImageCodecs
import TestSupport
import Testing

/// Embedded profiles and PNG colour chunks are converted to sRGB, compared with Pillow's ImageCms (an independent
/// lcms binding) within 2 levels per sample: both go through lcms's 8-bit path, which interpolates through a 3D
/// table; Tiler's conversion is built independently (its own profile parsing, marker assembly and row handling).
@Suite struct ColourTests {
    static let tolerance = 2
    static let profiles = ["AdobeRGB1998", "ProPhotoRGB", "SwappedRedAndGreen", "WideGamutRGB"]

    @Test("A PNG iCCP profile is converted to sRGB as Pillow's ImageCms does", arguments: profiles)
    func pngProfile(name: String) throws {
        let directory = try TemporaryDirectory()
        let image = ColourFixtures.gradient()
        let untagged = try directory.write(try PNGEncoder().encode(image), to: "plain.png")
        let tagged = try directory.write(
            ColourFixtures.inserting([ColourFixtures.iccpChunk(try ColourFixtures.profile(name))], into: try directory.read("plain.png")),
            to: "tagged.png")
        let decoded = try ImageDecoder.decode(path: tagged)
        let reference = try ColourFixtures.pillowReference(untagged: untagged, profile: "\(ColourFixtures.profileFolder)/\(name).icc")
        #expect(ColourFixtures.maxDifference(decoded.bytes, reference) <= Self.tolerance)
        #expect(ColourFixtures.maxDifference(decoded.bytes, image.bytes) > 10, "the profile made no difference")
        let header = try ImageDecoder.readHeader(path: tagged)
        guard case .iccProfile(let profile) = header.colourTag else {
            Issue.record("no profile found: \(header.colourTag)")
            return
        }
        #expect(profile.space == .rgb)
        #expect(header.colourConversion != nil)
    }

    @Test("Swapped red and green: the profile is honoured, not ignored")
    func swappedRedAndGreen() throws {
        let directory = try TemporaryDirectory()
        let image = ColourFixtures.gradient()
        let png = ColourFixtures.inserting(
            [ColourFixtures.iccpChunk(try ColourFixtures.profile("SwappedRedAndGreen"))], into: try PNGEncoder().encode(image))
        let decoded = try ImageDecoder.decode(path: try directory.write(png, to: "swapped.png"))
        for index in stride(from: 0, to: image.bytes.count, by: 3 * 97) {
            #expect(abs(Int(decoded.bytes[index]) - Int(image.bytes[index + 1])) <= Self.tolerance)
            #expect(abs(Int(decoded.bytes[index + 1]) - Int(image.bytes[index])) <= Self.tolerance)
        }
    }

    @Test("A JPEG profile split over three APP2 markers, in any order, is reassembled and converted")
    func jpegSplitProfile() throws {
        let directory = try TemporaryDirectory()
        let jpeg = try JPEGEncoder(quality: 95).encode(ColourFixtures.gradient())
        let profile = try ColourFixtures.profile("AdobeRGB1998")
        let piece = profile.count / 3 + 1
        let untagged = try directory.write(jpeg, to: "plain.jpg")
        let kept = try ImageDecoder.decode(path: untagged)
        let keptPNG = try directory.write(try PNGEncoder().encode(kept), to: "kept.png")
        let reference = try ColourFixtures.pillowReference(untagged: keptPNG, profile: "\(ColourFixtures.profileFolder)/AdobeRGB1998.icc")
        for order in [[1, 2, 3], [3, 1, 2]] {
            let tagged = try directory.write(ColourFixtures.jpegWithICC(jpeg, profile: profile, piece: piece, order: order), to: "tagged.jpg")
            let header = try ImageDecoder.readHeader(path: tagged)
            guard case .iccProfile(let found) = header.colourTag else {
                Issue.record("markers \(order) not reassembled: \(header.colourTag)")
                continue
            }
            #expect(found.bytes == profile)
            #expect(found.description == "Compatible with Adobe RGB (1998)")
            #expect(ColourFixtures.maxDifference(try ImageDecoder.decode(path: tagged).bytes, reference) <= Self.tolerance)
        }
    }

    @Test("A missing ICC marker, a truncated or a garbage profile: one warning, pixels untouched; an error when strict")
    func brokenProfiles() throws {
        let directory = try TemporaryDirectory()
        let image = ColourFixtures.gradient()
        let png = try PNGEncoder().encode(image)
        let jpeg = try JPEGEncoder(quality: 95).encode(image)
        let profile = try ColourFixtures.profile("AdobeRGB1998")
        var garbage = [UInt8](repeating: 0, count: 900)
        for index in garbage.indices { garbage[index] = UInt8(truncatingIfNeeded: index &* 7919 &+ 13) }
        let brokenChunk = PNGChunks.chunk("iCCP", Array("x".utf8) + [0, 0] + [0x78, 0x9C, 1, 2, 3, 4])
        let cases: [(String, [UInt8])] = [
            ("truncated.png", ColourFixtures.inserting([ColourFixtures.iccpChunk(Array(profile.prefix(200)))], into: png)),
            ("garbage.png", ColourFixtures.inserting([ColourFixtures.iccpChunk(garbage)], into: png)),
            ("damaged-zlib.png", ColourFixtures.inserting([brokenChunk], into: png)),
            ("missing-marker.jpg", ColourFixtures.jpegWithICC(jpeg, profile: profile, piece: 7000, drop: 2)),
            ("garbage.jpg", ColourFixtures.jpegWithICC(jpeg, profile: garbage)),
        ]
        for (name, bytes) in cases {
            let path = try directory.write(bytes, to: name)
            let log = WarningLog()
            var options = log.lenientOptions
            options.lenient = false
            let decoded = try ImageDecoder.decode(path: path, options: options)
            let plain = try ImageDecoder.decode(path: path, options: DecodeOptions(colour: .keep))
            #expect(decoded.bytes == plain.bytes, "\(name): pixels changed")
            #expect(log.lines.count == 1, "\(name): \(log.lines)")
            #expect(log.lines.first?.contains("colour profile ignored") == true, "\(name): \(log.lines)")
            #expect(log.lines.first?.contains("taken as sRGB") == true)
            let error = decodeError(path, options: DecodeOptions(colour: .strict))
            #expect(error?.kind == .badColourProfile, "\(name): \(String(describing: error))")
            #expect(error?.description.contains("\n") == false)
        }
    }

    @Test("An RGB profile on a gray image is refused with a warning; gray stays one channel")
    func rgbProfileOnGray() throws {
        let directory = try TemporaryDirectory()
        let gray = PixelBuffer(width: 32, height: 8, pixelFormat: .gray, bytes: (0..<256).map { UInt8($0) })
        let png = ColourFixtures.inserting(
            [ColourFixtures.iccpChunk(try ColourFixtures.profile("AdobeRGB1998"))], into: try PNGEncoder().encode(gray))
        let path = try directory.write(png, to: "gray.png")
        let log = WarningLog()
        let decoded = try ImageDecoder.decode(path: path, options: DecodeOptions(onWarning: log.lenientOptions.onWarning))
        #expect(decoded.pixelFormat == .gray)
        #expect(decoded.bytes == gray.bytes)
        #expect(log.lines.count == 1)
        #expect(log.lines.first?.contains("the profile is for RGB but the image is gray") == true, "\(log.lines)")
    }

    @Test("gAMA 1.0 on a gray PNG: linear light re-encoded with sRGB's curve, within 1 level")
    func linearGray() throws {
        let directory = try TemporaryDirectory()
        let gray = PixelBuffer(width: 32, height: 8, pixelFormat: .gray, bytes: (0..<256).map { UInt8($0) })
        let gama = PNGChunks.chunk("gAMA", PNGChunks.u32(100_000))
        let path = try directory.write(ColourFixtures.inserting([gama], into: try PNGEncoder().encode(gray)), to: "linear.png")
        let decoded = try ImageDecoder.decode(path: path)
        #expect(decoded.pixelFormat == .gray)
        for value in 0..<256 {
            let linear = Double(value) / 255
            let encoded = linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
            #expect(abs(Double(decoded.bytes[value]) - encoded * 255) <= 1, "value \(value)")
        }
        #expect(try ImageDecoder.readHeader(path: path).colourTag == .chunks(gamma: 1.0, chromaticities: nil))
    }

    @Test("A 16-bit PNG is converted at full depth (both bytes of each sample count)")
    func sixteenBit() throws {
        let directory = try TemporaryDirectory()
        let (width, height) = (16, 16)
        // Sample v·256 + 128: a decoder that swapped the bytes would see 128·256 + v.
        var raw: [UInt8] = []
        var eightBit: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width {
                for value in [x * 16, y * 16, (x + y) * 8] {
                    raw += [UInt8(value), 128]
                    eightBit.append(UInt8((Double(value * 256 + 128) / 257).rounded()))
                }
            }
        }
        let profile = try ColourFixtures.profile("ProPhotoRGB")
        let png =
            PNGChunks.signature + PNGChunks.ihdr(width: UInt32(width), height: UInt32(height), bitDepth: 16, colorType: 2)
            + ColourFixtures.iccpChunk(profile) + PNGChunks.chunk("IDAT", ColourFixtures.zlibStored(raw)) + PNGChunks.chunk("IEND", [])
        let path = try directory.write(png, to: "deep.png")
        let plain = try directory.write(
            try PNGEncoder().encode(PixelBuffer(width: width, height: height, pixelFormat: .rgb, bytes: eightBit)), to: "plain.png")
        let reference = try ColourFixtures.pillowReference(untagged: plain, profile: "\(ColourFixtures.profileFolder)/ProPhotoRGB.icc")
        let decoded = try ImageDecoder.decode(path: path)
        #expect(ColourFixtures.maxDifference(decoded.bytes, reference) <= Self.tolerance)
    }

    @Test("sRGB chunk and untagged files: no conversion; keep delivers the stored numbers")
    func untouched() throws {
        let directory = try TemporaryDirectory()
        let image = ColourFixtures.gradient()
        let png = try PNGEncoder().encode(image)
        let srgb = try directory.write(ColourFixtures.inserting([PNGChunks.chunk("sRGB", [0])], into: png), to: "srgb.png")
        let plain = try directory.write(png, to: "plain.png")
        let tagged = try directory.write(
            ColourFixtures.inserting([ColourFixtures.iccpChunk(try ColourFixtures.profile("AdobeRGB1998"))], into: png), to: "adobe.png")
        #expect(try ImageDecoder.readHeader(path: srgb).colourTag == .srgbChunk(intent: 0))
        #expect(try ImageDecoder.readHeader(path: plain).colourTag == .untagged)
        for path in [srgb, plain] {
            #expect(try ImageDecoder.readHeader(path: path).colourConversion == nil)
            #expect(try ImageDecoder.decode(path: path).bytes == image.bytes)
        }
        #expect(try ImageDecoder.decode(path: tagged, options: DecodeOptions(colour: .keep)).bytes == image.bytes)
        #expect(try ImageDecoder.readHeader(path: tagged, options: DecodeOptions(colour: .keep)).colourConversion == nil)
    }

    @Test(
        "CMYK, Adobe-inverted CMYK and YCCK JPEGs go through their embedded CMYK profile",
        arguments: [JPEGFixture.all[9], JPEGFixture.all[10], JPEGFixture.all[11]])
    func cmykProfile(fixture: JPEGFixture) throws {
        var buffer: UnsafeMutablePointer<UInt8>?
        var length = 0
        try #require(tiler_lcms_test_cmyk_profile(&buffer, &length) == 0)
        defer { tiler_lcms_free(buffer) }
        let profile = Array(UnsafeBufferPointer(start: buffer, count: length))
        let directory = try TemporaryDirectory()
        try fixture.write(to: directory.file("plain.jpg"))
        let path = try directory.write(ColourFixtures.jpegWithICC(try directory.read("plain.jpg"), profile: profile), to: "tagged.jpg")
        let log = WarningLog()
        let decoded = try ImageDecoder.decode(path: path, options: DecodeOptions(onWarning: log.lenientOptions.onWarning))
        #expect(log.lines.isEmpty, "\(log.lines)")
        #expect(try ImageDecoder.readHeader(path: path).colourConversion?.contains("Tiler test CMYK") == true)
        // The profile reproduces the uncalibrated formula, so each patch's centre must come out as that formula says
        // (within 6 levels: JPEG, and a 9⁴ table); ink read the wrong way round would be off by over 100.
        for patch in 0..<8 {
            let (x, y) = (patch % 4 * 16 + 8, patch / 4 * 16 + 8)
            let got = Array(decoded.bytes[(y * JPEGFixture.width + x) * 3..<(y * JPEGFixture.width + x) * 3 + 3])
            let want = fixture.expectedPatch(patch)
            #expect(ColourFixtures.maxDifference(got, want) <= 6, "patch \(patch): \(got) vs \(want)")
        }
    }

    @Test("A CMYK JPEG without a profile says which conversion was used")
    func cmykWithoutProfile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("cmyk.jpg")
        try JPEGFixture.all[10].write(to: path)
        let log = WarningLog()
        _ = try ImageDecoder.decode(path: path, options: DecodeOptions(onWarning: log.lenientOptions.onWarning))
        #expect(log.lines.count == 1)
        #expect(
            log.lines.first?.contains("CMYK with no usable embedded profile: converted to RGB with the uncalibrated formula") == true, "\(log.lines)")
    }

    @Test("Truncated and mutated profiles are parsed or refused, never a crash", .timeLimit(.minutes(5)))
    func mutatedProfiles() throws {
        let original = try ColourFixtures.profile("Gamma5000K")
        var random = SplitMix64(seed: 15)
        var outcomes = (built: 0, refused: 0)
        var candidates = stride(from: 0, to: original.count, by: 193).map { Array(original.prefix($0)) }
        for _ in 0..<300 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            candidates.append(bytes)
        }
        let pixels: [UInt8] = (0..<48).map { UInt8($0 * 5) }
        var out = [UInt8](repeating: 0, count: 48)
        for bytes in candidates {
            do {
                _ = try ICCProfile(bytes: bytes)
                let transform = try ColourTransform(iccProfile: bytes, input: ColourInput(space: .rgb))
                transform.apply(pixels, to: &out, pixels: 16)
                outcomes.built += 1
            } catch {
                #expect(!error.message.isEmpty && !error.message.contains("\n"))
                outcomes.refused += 1
            }
        }
        #expect(outcomes.built > 0 && outcomes.refused > 0, "\(outcomes)")
    }

    @Test("8-bit RGB through the matrix tables, 16-bit through lcms, 8-bit gray through a table; a wrong model is refused")
    func transformMethod() throws {
        let profile = try ColourFixtures.profile("AdobeRGB1998")
        #expect(try ColourTransform(iccProfile: profile, input: ColourInput(space: .rgb)).method.hasPrefix("matrix tables"))
        #expect(try ColourTransform(iccProfile: profile, input: ColourInput(space: .rgb, bytesPerSample: 2)).method == "lcms")
        #expect(throws: ColourError.self) { try ColourTransform(iccProfile: profile, input: ColourInput(space: .cmyk)) }
        let gray = try ColourTransform(gamma: 1.0, chromaticities: nil, input: ColourInput(space: .gray))
        #expect(gray.method == "lcms gray table")
        var out = [UInt8](repeating: 0, count: 1)
        gray.apply([1] as [UInt8], to: &out, pixels: 1)
        #expect(out == [13])
    }
}
