import CPNG
import ImageCodecs
import TestSupport
import Testing

@Suite struct PNGDecodeTests {
    @Test("Every colour type and bit depth decodes to the specified 8-bit pixels", arguments: PNGFixture.all)
    func decodesExpectedPixels(_ fixture: PNGFixture) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("fixture.png")
        try fixture.write(to: path)
        let (format, expected) = fixture.expectedPixels()
        let image = try ImageDecoder.decode(path: path)
        #expect(image.width == fixture.width)
        #expect(image.height == fixture.height)
        #expect(image.pixelFormat == format)
        #expect(image.bytes == expected)
    }

    @Test("The header reports the source facts without decoding", arguments: PNGFixture.all)
    func headerFacts(_ fixture: PNGFixture) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("fixture.png")
        try fixture.write(to: path)
        let header = try ImageDecoder.readHeader(path: path)
        let names: [Int32: String] = [0: "gray", 2: "rgb", 3: "palette", 4: "gray+alpha", 6: "rgba"]
        #expect(header.format == .png)
        #expect(header.width == fixture.width && header.height == fixture.height)
        #expect(header.bitDepth == fixture.bitDepth)
        #expect(header.colorType == names[fixture.colorType])
        #expect(header.interlaced == fixture.interlaced)
        #expect(header.canStream == !fixture.interlaced)
        #expect(header.progressive == false)
        #expect(header.chromaSubsampling == nil)
        #expect(header.orientation == nil)
        #expect(header.pixelFormat == fixture.expectedPixels().0)
        #expect(header.channels == header.pixelFormat.channels)
    }

    @Test("Strips of any height concatenate to the whole image", arguments: [1, 4, 7, 11, 100])
    func stripsConcatenate(rowsPerStrip: Int) throws {
        let directory = try TemporaryDirectory()
        for fixture in [
            PNGFixture(colorType: 2, bitDepth: 16, trns: true, interlaced: false),
            PNGFixture(colorType: 3, bitDepth: 4, trns: true, interlaced: true),
        ] {
            let path = directory.file("\(fixture.interlaced).png")
            try fixture.write(to: path)
            let reader = try ImageDecoder.open(path: path)
            #expect(try readAllInStrips(reader, rowsPerStrip: rowsPerStrip) == fixture.expectedPixels().1)
            #expect(reader.rowsRead == fixture.height)
        }
    }

    @Test("EXIF orientation comes from the eXIf chunk", arguments: [1, 3, 6, 8])
    func exifOrientation(orientation: Int) throws {
        let directory = try TemporaryDirectory()
        let fixture = PNGFixture(colorType: 2, bitDepth: 8, trns: false, interlaced: false)
        for bigEndian in [false, true] {
            let path = directory.file("exif\(bigEndian).png")
            try fixture.write(to: path, exif: Exif.block(orientation: orientation, bigEndian: bigEndian))
            #expect(try ImageDecoder.readHeader(path: path).orientation == orientation)
            #expect(try ImageDecoder.decode(path: path).bytes == fixture.expectedPixels().1)
        }
        let plain = directory.file("noorientation.png")
        try fixture.write(to: plain, exif: Exif.block(orientation: nil))
        #expect(try ImageDecoder.readHeader(path: plain).orientation == nil)
    }
}

/// Reads every row through `readRows` in strips of `rowsPerStrip`, checking the strip contract.
func readAllInStrips(_ reader: any ImageRowReader, rowsPerStrip: Int) throws -> [UInt8] {
    let header = reader.header
    let stride = header.width * header.channels
    var strip = [UInt8](repeating: 0, count: stride * rowsPerStrip)
    var all: [UInt8] = []
    while true {
        let rows = try strip.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, rowCount: rowsPerStrip) }
        all += strip[0..<rows * stride]
        if rows < rowsPerStrip { break }
    }
    #expect(try strip.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, rowCount: rowsPerStrip) } == 0)
    return all
}
