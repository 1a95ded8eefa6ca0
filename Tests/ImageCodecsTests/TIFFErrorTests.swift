import ImageCodecs
import TestSupport
import Testing

/// Bad and unsupported TIFFs fail with one line naming the file and the problem, before any pixel memory is
/// allocated where the header already says so.
@Suite struct TIFFErrorTests {
    static let plain = TIFFFixture(name: "plain", photometric: 2, samples: 3, bits: 8, rowsPerStrip: 37)

    /// Writes `fixture`, lets `patch` change its bytes, and returns the decoding error.
    private func error(_ fixture: TIFFFixture = plain, patch: (inout [UInt8]) -> Void = { _ in }, options: DecodeOptions = .init()) throws
        -> (String, CodecError?)
    {
        let directory = try TemporaryDirectory()
        try fixture.write(to: directory.file("bad.tif"))
        var bytes = try directory.read("bad.tif")
        patch(&bytes)
        let path = try directory.write(bytes, to: "bad.tif")
        return (path, decodeError(path, options: options))
    }

    @Test func floatingPointSamples() throws {
        let (path, error) = try self.error(TIFFFixture(name: "float", photometric: 1, samples: 1, bits: 32, sampleFormat: 3))
        #expect(error?.description == path + ": 32-bit floating-point samples are not supported")
        #expect(error?.kind == .unsupportedFormat)
    }

    @Test func thirtyTwoBitIntegers() throws {
        let (path, error) = try self.error(TIFFFixture(name: "u32", photometric: 1, samples: 1, bits: 32))
        #expect(error?.description == path + ": 32-bit samples are not supported (1, 2, 4, 8 and 16 are)")
    }

    @Test func signedSamples() throws {
        let (path, error) = try self.error(TIFFFixture(name: "s16", photometric: 1, samples: 1, bits: 16, sampleFormat: 2))
        #expect(error?.description == path + ": signed 16-bit integer samples are not supported")
    }

    @Test func oldStyleJPEG() throws {
        let (path, error) = try self.error(patch: { TIFFPatch.set(&$0, tag: 259, to: 6) })
        #expect(error?.description == path + ": old-style JPEG compression (6) is not supported")
    }

    @Test func unknownCompression() throws {
        let (path, error) = try self.error(patch: { TIFFPatch.set(&$0, tag: 259, to: 40000) })
        #expect(error?.kind == .unsupportedFormat)
        #expect(error?.description.hasPrefix(path + ": ") == true)
        #expect(error?.message.contains("40000") == true, "\(String(describing: error))")
    }

    @Test func stripOffsetPastTheEnd() throws {
        let (path, error) = try self.error(patch: { TIFFPatch.set(&$0, tag: 273, to: 0x7FFF_0000) })
        #expect(error?.kind == .truncated || error?.kind == .corrupt, "\(String(describing: error))")
        #expect(error?.description.hasPrefix(path + ": ") == true)
        #expect(error?.row == 0)
    }

    @Test func absurdSizeIsRefusedFromTheHeader() throws {
        let (path, error) = try self.error(patch: {
            TIFFPatch.set(&$0, tag: 256, to: 200_000)
            TIFFPatch.set(&$0, tag: 257, to: 200_000)
            TIFFPatch.set(&$0, tag: 278, to: 200_000)
        })
        #expect(error?.kind == .tooLarge, "\(String(describing: error))")
        #expect(error?.description == path + ": image is 200000 × 200000 = 40000000000 pixels, over the limit of 17179869184")
    }

    @Test func pixelLimitApplies() throws {
        let (path, error) = try self.error(options: DecodeOptions(maxPixels: 1000))
        #expect(error?.description == path + ": image is 45 × 37 = 1665 pixels, over the limit of 1000")
    }

    @Test func aCutInsideTheHeaderNamesTIFF() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write([0x49, 0x49, 0x2A], to: "cut.tif")
        #expect(decodeError(path)?.description == path + ": truncated TIFF header (file ends after 3 bytes)")
        let eight = try directory.write([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00], to: "six.tif")
        #expect(decodeError(eight)?.kind == .truncated, "\(String(describing: decodeError(eight)))")
    }

    @Test func damagedStripDataFailsWithTheRowUnlessLenient() throws {
        let fixture = TIFFFixture(name: "lzw", photometric: 2, samples: 3, bits: 8, compression: TIFFFixture.lzw)
        let directory = try TemporaryDirectory()
        try fixture.write(to: directory.file("lzw.tif"))
        let whole = try directory.read("lzw.tif")
        // Cut in the middle of the image data (libtiff writes the IFD last, so it must be kept): drop strip bytes.
        var bytes = whole
        bytes.replaceSubrange(8..<8 + whole.count / 3, with: [UInt8](repeating: 0, count: whole.count / 3))
        let path = try directory.write(bytes, to: "damaged.tif")
        let strict = decodeError(path)
        #expect(strict != nil)
        #expect(strict?.description.hasPrefix(path + ": ") == true)
        let warnings = WarningLog()
        _ = decodeError(path, options: warnings.lenientOptions)
        #expect(!warnings.lines.isEmpty || strict == nil)
    }
}
