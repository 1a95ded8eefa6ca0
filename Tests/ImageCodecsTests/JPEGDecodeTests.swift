import CJPEG
import ImageCodecs
import TestSupport
import Testing

@Suite struct JPEGDecodeTests {
    @Test("Every JPEG variant decodes to its patch colours", arguments: JPEGFixture.all)
    func decodesPatchColours(_ fixture: JPEGFixture) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("fixture.jpg")
        try fixture.write(to: path)
        let image = try ImageDecoder.decode(path: path)
        #expect(image.width == JPEGFixture.width && image.height == JPEGFixture.height)
        #expect(image.pixelFormat == (fixture.isGray ? .gray : .rgb))
        let channels = image.pixelFormat.channels
        for patch in 0..<8 {
            // The middle of each 16×16 patch, away from edges where upsampling blends neighbours.
            let (x, y) = ((patch % 4) * 16 + 8, (patch / 4) * 16 + 8)
            let offset = (y * image.width + x) * channels
            let got = Array(image.bytes[offset..<offset + channels])
            let want = fixture.expectedPatch(patch)
            let error = zip(got, want).map { abs(Int($0) - Int($1)) }.max()!
            #expect(error <= 6, "patch \(patch): got \(got), want \(want)")
        }
    }

    @Test("The header reports colour space, sampling and progression", arguments: JPEGFixture.all)
    func headerFacts(_ fixture: JPEGFixture) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("fixture.jpg")
        try fixture.write(to: path)
        let header = try ImageDecoder.readHeader(path: path)
        #expect(header.format == .jpeg)
        #expect(header.width == JPEGFixture.width && header.height == JPEGFixture.height)
        #expect(header.colorType == fixture.colorType)
        #expect(header.chromaSubsampling == fixture.subsampling)
        #expect(header.progressive == fixture.progressive)
        #expect(header.interlaced == false && header.canStream)
        #expect(header.bitDepth == 8)
        #expect(header.pixelFormat == (fixture.isGray ? .gray : .rgb))
        #expect(header.orientation == nil)
    }

    @Test("EXIF orientation comes from the APP1 Exif marker", arguments: [1, 2, 5, 8])
    func exifOrientation(orientation: Int) throws {
        let directory = try TemporaryDirectory()
        let fixture = JPEGFixture.all[2]
        for bigEndian in [false, true] {
            let path = directory.file("exif\(bigEndian).jpg")
            try fixture.write(to: path, exif: Exif.block(orientation: orientation, bigEndian: bigEndian))
            #expect(try ImageDecoder.readHeader(path: path).orientation == orientation)
        }
    }

    @Test("Strips of any height concatenate to the whole image", arguments: [1, 3, 16, 17, 40])
    func stripsConcatenate(rowsPerStrip: Int) throws {
        let directory = try TemporaryDirectory()
        for fixture in [JPEGFixture.all[2], JPEGFixture.all[5], JPEGFixture.all[11]] {
            let path = directory.file("strips.jpg")
            try fixture.write(to: path)
            let whole = try ImageDecoder.decode(path: path)
            let reader = try ImageDecoder.open(path: path)
            #expect(try readAllInStrips(reader, rowsPerStrip: rowsPerStrip) == whole.bytes, "\(fixture)")
        }
    }
}
