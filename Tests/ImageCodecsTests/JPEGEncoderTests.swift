import ImageCodecs
import TestSupport
import Testing

@Suite struct JPEGEncoderTests {
    static let smooth = SmoothImage.make(width: 256, height: 256)

    @Test("Quality 90 keeps a smooth image above 38 dB", arguments: ChromaSubsampling.allCases)
    func psnrAtQuality90(subsampling: ChromaSubsampling) throws {
        let directory = try TemporaryDirectory()
        let encoded = try JPEGEncoder(quality: 90, subsampling: subsampling).encode(Self.smooth)
        let (header, decoded) = try Tiles.decode(encoded, in: directory)
        #expect(header.chromaSubsampling == subsampling.rawValue)
        #expect(header.colorType == "ycbcr" && !header.progressive)
        #expect(decoded.pixelFormat == .rgb)
        let psnr = SmoothImage.psnr(decoded.bytes, Self.smooth.bytes)
        #expect(psnr >= 38, "PSNR \(psnr) dB")
    }

    @Test func grayRoundTrip() throws {
        let directory = try TemporaryDirectory()
        let gray = SmoothImage.make(width: 200, height: 120, format: .gray)
        let (header, decoded) = try Tiles.decode(try JPEGEncoder(quality: 90).encode(gray), in: directory)
        #expect(header.colorType == "gray" && header.chromaSubsampling == nil)
        #expect(SmoothImage.psnr(decoded.bytes, gray.bytes) >= 38)
    }

    @Test("Alpha is dropped without changing the result: RGBA encodes as RGB, gray+alpha as gray")
    func alphaIsDropped() throws {
        let encoder = try JPEGEncoder()
        let rgba = Tiles.noise(width: 70, height: 50, format: .rgba)
        let rgb = PixelBuffer(
            width: 70, height: 50, pixelFormat: .rgb, bytes: rgba.bytes.enumerated().filter { $0.offset % 4 != 3 }.map(\.element))
        #expect(try encoder.encode(rgba) == encoder.encode(rgb))
        let grayAlpha = Tiles.noise(width: 70, height: 50, format: .grayAlpha)
        let gray = PixelBuffer(
            width: 70, height: 50, pixelFormat: .gray, bytes: grayAlpha.bytes.enumerated().filter { $0.offset % 2 == 0 }.map(\.element))
        #expect(try encoder.encode(grayAlpha) == encoder.encode(gray))
    }

    @Test("A strided tile encodes exactly like the same pixels copied out", arguments: PixelFormat.allCases)
    func stridedTile(format: PixelFormat) throws {
        let encoder = try JPEGEncoder()
        let wide = Tiles.noise(width: 300, height: 90, format: format)
        let strided = try Tiles.encodeRegion(wide, x: 17, y: 9, width: 256, height: 64, encoder.encode)
        #expect(strided == (try encoder.encode(Tiles.crop(wide, x: 17, y: 9, width: 256, height: 64))))
    }

    @Test func optimisedHuffmanIsLosslessAndSmaller() throws {
        let directory = try TemporaryDirectory()
        let plain = try JPEGEncoder(quality: 85).encode(Self.smooth)
        let optimised = try JPEGEncoder(quality: 85, optimizeHuffman: true).encode(Self.smooth)
        #expect(optimised.count < plain.count)
        #expect(try Tiles.decode(optimised, in: directory, name: "o").1 == Tiles.decode(plain, in: directory, name: "p").1)
    }

    @Test func oneEncoderManyTilesAndRecoversFromErrors() throws {
        let directory = try TemporaryDirectory()
        let encoder = try JPEGEncoder(quality: 90)
        let wide = [UInt8](repeating: 128, count: 70_000 * 3)
        #expect {
            _ = try wide.withUnsafeBufferPointer {
                try encoder.encode($0.baseAddress!, width: 70_000, height: 1, rowStride: 70_000 * 3, pixelFormat: .rgb)
            }
        } throws: { error in
            (error as? CodecError)?.description == "JPEG encoding failed: Maximum supported image dimension is 65500 pixels"
        }
        for (index, format) in (PixelFormat.allCases + PixelFormat.allCases.reversed()).enumerated() {
            let image = SmoothImage.make(width: 16 + index * 37, height: 8 + index * 29, format: format)
            let (header, decoded) = try Tiles.decode(try encoder.encode(image), in: directory)
            #expect(header.width == image.width && header.height == image.height)
            let expected = format == .rgba || format == .grayAlpha ? dropAlpha(image) : image.bytes
            #expect(SmoothImage.psnr(decoded.bytes, expected) >= 36, "tile \(index) \(format)")
        }
    }

    @Test func rejectsQualityOutsideOneToHundred() {
        for quality in [0, 101] {
            #expect {
                _ = try JPEGEncoder(quality: quality)
            } throws: { error in
                (error as? CodecError)?.description == "JPEG quality must be 1–100, got \(quality)"
            }
        }
    }

    private func dropAlpha(_ image: PixelBuffer) -> [UInt8] {
        let channels = image.pixelFormat.channels
        return image.bytes.enumerated().filter { $0.offset % channels != channels - 1 }.map(\.element)
    }
}
