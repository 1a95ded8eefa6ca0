import CTIFF
import ImageCodecs
import TestSupport
import Testing

/// Every TIFF variant decodes to the same pixels as the same picture stored as PNG.
@Suite struct TIFFDecodeTests {
    @Test("Each variant decodes like the same image as PNG", arguments: TIFFFixture.available)
    func matchesPNG(fixture: TIFFFixture) throws {
        let directory = try TemporaryDirectory()
        let tiff = directory.file("image.tif")
        try fixture.write(to: tiff)
        let decoded = try ImageDecoder.decode(path: tiff)
        let header = try ImageDecoder.readHeader(path: tiff)
        #expect(header.format == .tiff)
        #expect(header.tiff?.tiled == fixture.tiled)
        #expect(header.tiff?.bigTIFF == fixture.bigTIFF)
        #expect(header.tiff?.separatePlanes == (fixture.planar == 2))
        #expect(header.tiff?.compression == Int(fixture.compression))
        #expect(header.bitDepth == fixture.bits)
        #expect((decoded.width, decoded.height) == (fixture.width, fixture.height))
        let expected: [UInt8]
        if fixture.photometric == 5 {
            expected = fixture.expectedCMYK()
            #expect(decoded.pixelFormat == (fixture.extra >= 0 ? .rgba : .rgb))
        } else {
            let png = directory.file("reference.png")
            #expect(try fixture.writeReferencePNG(to: png))
            let reference = try ImageDecoder.decode(path: png)
            #expect(decoded.pixelFormat == reference.pixelFormat)
            expected = reference.bytes
        }
        #expect(decoded.bytes.count == expected.count)
        let differences = zip(decoded.bytes, expected).map { abs(Int($0) - Int($1)) }
        if fixture.lossy {
            #expect(SmoothImage.psnr(decoded.bytes, expected) > 35, "PSNR \(SmoothImage.psnr(decoded.bytes, expected))")
        } else if fixture.extra == 1 {
            // Premultiplied samples lose precision where alpha is low: alpha here is at least half, so ±1 (8-bit).
            #expect(differences.max() ?? 0 <= 1, "largest difference \(differences.max() ?? 0)")
        } else {
            #expect(differences.max() ?? 0 == 0, "largest difference \(differences.max() ?? 0)")
        }
    }

    /// Over a megapixel a band decodes on several threads (tile columns, or one strip per thread).
    @Test(
        "Images large enough to decode on several threads match PNG",
        arguments: [
            TIFFFixture(name: "RGB LZW tiles", photometric: 2, samples: 3, bits: 8, compression: TIFFFixture.lzw, tiled: true),
            TIFFFixture(name: "RGB Deflate strips", photometric: 2, samples: 3, bits: 8, compression: TIFFFixture.deflate, predictor: 2),
            TIFFFixture(name: "RGBA 16-bit separate tiles", photometric: 2, samples: 4, bits: 16, planar: 2, tiled: true, extra: 2),
            TIFFFixture(name: "gray 4-bit strips", photometric: 1, samples: 1, bits: 4, compression: TIFFFixture.packBits),
        ])
    func largeImagesMatchPNG(fixture: TIFFFixture) throws {
        var fixture = fixture
        (fixture.width, fixture.height) = (1100, 1000)
        try matchesPNG(fixture: fixture)
    }

    @Test func theCorpusCoversTheCommonCodecs() {
        for code in [TIFFFixture.none, TIFFFixture.packBits, TIFFFixture.lzw, TIFFFixture.deflate, TIFFFixture.jpeg] {
            #expect(tiler_tiff_codec_configured(code) != 0, "compression \(code)")
        }
        #expect(TIFFFixture.available.count >= 40)
    }

    @Test func pagesAreChosenByPageOrFullResolution() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("pages.tif")
        let big = TIFFFixture(name: "p0", photometric: 2, samples: 3, bits: 8, compression: TIFFFixture.lzw)
        var half = big
        half.width = 23
        half.height = 19
        half.reduced = true
        var gray = TIFFFixture(name: "p2", photometric: 1, samples: 1, bits: 8)
        gray.width = 30
        gray.height = 10
        try big.write(to: path, pages: [half, gray])
        let first = try ImageDecoder.readHeader(path: path)
        #expect((first.width, first.height, first.tiff?.page, first.tiff?.pageCount) == (45, 37, 0, 3))
        let second = try ImageDecoder.readHeader(path: path, options: DecodeOptions(page: 1))
        #expect((second.width, second.height, second.tiff?.reducedResolution) == (23, 19, true))
        let third = try ImageDecoder.decode(path: path, options: DecodeOptions(page: 2))
        #expect((third.width, third.height, third.pixelFormat) == (30, 10, .gray))
        let missing = decodeError(path, options: DecodeOptions(page: 3))
        #expect(missing?.description == path + ": there is no page 3: the file has 3 pages (0–2)")
        #expect(missing?.kind == .invalidArgument)
    }

    @Test func orientationAndICCProfileAreExposed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("tagged.tif")
        var fixture = TIFFFixture(name: "tagged", photometric: 2, samples: 3, bits: 8)
        fixture.orientation = 6
        let profile = [UInt8](repeating: 7, count: 132)
        try fixture.write(to: path, icc: profile)
        let header = try ImageDecoder.readHeader(path: path)
        #expect(header.orientation == 6)
        #expect(header.iccProfile == profile)
        // Rows are delivered as stored, like EXIF orientation for JPEG and PNG.
        #expect(try ImageDecoder.decode(path: path).width == 45)
    }

    @Test func aPyramidalTIFFReadsItsFullResolutionPage() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("pyramid.tif")
        var small = TIFFFixture(name: "small", photometric: 2, samples: 3, bits: 8, tiled: true)
        small.width = 22
        small.height = 18
        small.reduced = true
        let full = TIFFFixture(name: "full", photometric: 2, samples: 3, bits: 8, tiled: true)
        // A reduced page first (NewSubfileType 1), then the full one: the default is the full one, and --page 0
        // still reads the reduced one.
        try small.write(to: path, pages: [full])
        let header = try ImageDecoder.readHeader(path: path)
        #expect((header.width, header.tiff?.page, header.tiff?.reducedResolution) == (45, 1, false))
        #expect(try ImageDecoder.readHeader(path: path, options: DecodeOptions(page: 0)).width == 22)
    }

    @Test func pagesOfSingleImageFormatsAreRefused() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("one.png")
        try PNGFixture(colorType: 2, bitDepth: 8, trns: false, interlaced: false).write(to: path)
        #expect(decodeError(path, options: DecodeOptions(page: 1))?.description == path + ": there is no page 1: a PNG file has one page (0)")
        #expect(decodeError(path, options: DecodeOptions(page: 0)) == nil)
    }
}

/// A band the caller has room for is decoded straight into its rows; any other read goes through the band buffer.
/// Both must give the same rows, in any mix.
@Suite struct TIFFBandTests {
    @Test(
        "Rows are the same read straight into the caller's memory or through the band buffer",
        arguments: [
            TIFFFixture(name: "RGB LZW tiles, several threads", photometric: 2, samples: 3, bits: 8, compression: TIFFFixture.lzw, tiled: true),
            TIFFFixture(
                name: "RGB Deflate strips, several threads", photometric: 2, samples: 3, bits: 8, compression: TIFFFixture.deflate, predictor: 2),
            TIFFFixture(name: "gray strips, one thread", photometric: 1, samples: 1, bits: 8, compression: TIFFFixture.packBits),
            TIFFFixture(name: "RGBA tiles, one thread", photometric: 2, samples: 4, bits: 8, tiled: true, extra: 2),
        ])
    func mixedReadsMatchWholeDecode(fixture: TIFFFixture) throws {
        var fixture = fixture
        // Over a megapixel bands decode on several threads; below it on the calling thread only.
        (fixture.width, fixture.height) = fixture.name.hasSuffix("several threads") ? (1100, 1000) : (300, 200)
        let directory = try TemporaryDirectory()
        let path = directory.file("image.tif")
        try fixture.write(to: path)
        let whole = try ImageDecoder.decode(path: path)
        let reader = try ImageDecoder.open(path: path)
        let band = reader.preferredBatchRows
        #expect(band > 0, "a plain 8-bit TIFF can be read straight into the caller's rows")
        let stride = reader.header.width * reader.header.channels
        var bytes = [UInt8](repeating: 0xA5, count: stride * reader.header.height)
        var step = 0
        var direct = 0
        try bytes.withUnsafeMutableBufferPointer { buffer in
            while reader.rowsRead < reader.header.height {
                let row = reader.rowsRead
                // Whole bands at band starts on even steps; otherwise a few rows, which start or continue a buffered band.
                let aligned = row % band == 0 && step % 2 == 0
                let wanted = min(aligned ? band : 1 + step % 5, reader.header.height - row)
                if aligned { direct += 1 }
                let rows = try reader.readRows(into: buffer.baseAddress! + row * stride, rowCount: wanted)
                #expect(rows == wanted)
                step += 1
            }
        }
        #expect(direct >= 2)
        #expect(bytes == whole.bytes)
    }

    @Test func samplesToConvertHaveNoPreferredBatch() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("image.tif")
        try TIFFFixture(name: "RGB 16-bit tiles", photometric: 2, samples: 3, bits: 16, tiled: true).write(to: path)
        #expect(try ImageDecoder.open(path: path).preferredBatchRows == 0)
        try TIFFFixture(name: "RGB separate strips", photometric: 2, samples: 3, bits: 8, planar: 2).write(to: path)
        #expect(try ImageDecoder.open(path: path).preferredBatchRows == 0)
    }
}
