import ImageCodecs
import TestSupport
import Testing

/// Damaged files fail loudly by default, naming the row reached; lenient mode turns damage into warnings.
@Suite struct DamagedInputTests {
    static let image = SmoothImage.make(width: 64, height: 480)
    /// Noise compresses poorly, so a PNG cut at half its length stops well inside the image
    /// (libpng reads image data 8 KiB at a time).
    static let noisy: PixelBuffer = {
        var random = SplitMix64(seed: 7)
        return PixelBuffer(width: 64, height: 480, pixelFormat: .rgb, bytes: image.bytes.map { $0 ^ UInt8.random(in: 0...31, using: &random) })
    }()

    /// Writes `image` encoded by `encode`, and the same file cut at half its length; returns both paths.
    private func writeWholeAndCut(_ directory: TemporaryDirectory, name: String, encoded: [UInt8]) throws -> (String, String) {
        (try directory.write(encoded, to: name), try directory.write(Array(encoded.prefix(encoded.count / 2)), to: "cut-" + name))
    }

    @Test func truncatedJPEGNamesTheRowReached() throws {
        let directory = try TemporaryDirectory()
        let encoded = try JPEGEncoder(quality: 90).encode(Self.image)
        let (whole, cut) = try writeWholeAndCut(directory, name: "a.jpg", encoded: encoded)
        let error = try #require(decodeError(cut))
        let row = try #require(error.row)
        #expect(error.kind == .truncated)
        #expect((100..<380).contains(row), "a cut at half the file stops near half the rows")
        #expect(error.description == "\(cut): Premature end of JPEG file (at row \(row) of 480)")

        let log = WarningLog()
        let lenient = try ImageDecoder.decode(path: cut, options: log.lenientOptions)
        #expect(log.lines.first == "\(cut): Premature end of JPEG file")
        let reference = try ImageDecoder.decode(path: whole)
        let intact = (row - 16) * 64 * 3
        #expect(lenient.bytes[..<intact] == reference.bytes[..<intact], "rows before the cut decode as in the whole file")
    }

    @Test func truncatedPNGNamesTheRowReached() throws {
        let directory = try TemporaryDirectory()
        let encoded = try PNGEncoder().encode(Self.noisy)
        let (whole, cut) = try writeWholeAndCut(directory, name: "a.png", encoded: encoded)
        let error = try #require(decodeError(cut))
        let row = try #require(error.row)
        #expect(error.kind == .truncated)
        #expect((100..<380).contains(row))
        #expect(error.description == "\(cut): unexpected end of file (at row \(row) of 480)")

        let log = WarningLog()
        let lenient = try ImageDecoder.decode(path: cut, options: log.lenientOptions)
        #expect(log.lines == ["\(cut): unexpected end of file (at row \(row) of 480); the rest of the image is left black"])
        let reference = try ImageDecoder.decode(path: whole)
        let split = row * 64 * 3
        #expect(lenient.bytes[..<split] == reference.bytes[..<split])
        #expect(lenient.bytes[split...].allSatisfy { $0 == 0 })
    }

    @Test func truncatedInterlacedPNGNamesThePass() throws {
        let directory = try TemporaryDirectory()
        let fixture = PNGFixture(colorType: 2, bitDepth: 8, trns: false, interlaced: true, width: 64, height: 64)
        try fixture.write(to: directory.file("whole.png"))
        let bytes = try directory.read("whole.png")
        let cut = try directory.write(Array(bytes.prefix(bytes.count * 3 / 4)), to: "cut.png")
        let error = try #require(decodeError(cut))
        #expect(error.kind == .truncated)
        #expect(error.row == nil)
        #expect(error.description.hasPrefix("\(cut): unexpected end of file (in Adam7 pass "))
        let log = WarningLog()
        #expect(try ImageDecoder.decode(path: cut, options: log.lenientOptions).bytes.count == 64 * 64 * 3)
        #expect(log.lines.count == 1)
    }

    @Test func strayBytesBetweenJPEGMarkers() throws {
        let directory = try TemporaryDirectory()
        var encoded = try JPEGEncoder(quality: 90).encode(Self.image)
        let whole = try directory.write(encoded, to: "whole.jpg")
        #expect(encoded[2..<4] == [0xFF, 0xE0])
        encoded.insert(0x42, at: 4 + Int(encoded[4]) << 8 + Int(encoded[5]))  // after the JFIF APP0 segment
        let path = try directory.write(encoded, to: "stray.jpg")
        let error = try #require(decodeError(path))
        #expect(error.kind == .corrupt)
        #expect(error.description == "\(path): Corrupt JPEG data: 1 extraneous bytes before marker 0xdb")

        let log = WarningLog()
        #expect(try ImageDecoder.decode(path: path, options: log.lenientOptions) == ImageDecoder.decode(path: whole))
        #expect(log.lines == ["\(path): Corrupt JPEG data: 1 extraneous bytes before marker 0xdb"])
    }

    @Test func markerInsideEntropyCodedData() throws {
        let directory = try TemporaryDirectory()
        var encoded = try JPEGEncoder(quality: 90).encode(Self.image)
        encoded.insert(contentsOf: [0xFF, 0xD0], at: encoded.count / 2)  // RST0 where no restart interval was declared
        let path = try directory.write(encoded, to: "rst.jpg")
        let error = try #require(decodeError(path))
        #expect(error.kind == .corrupt)
        #expect(error.message.hasPrefix("Corrupt JPEG data"))
        #expect((100..<380).contains(error.row ?? -1), "\(error)")

        let log = WarningLog()
        #expect(try ImageDecoder.decode(path: path, options: log.lenientOptions).bytes.count == 64 * 480 * 3)
        #expect(log.lines.first?.hasPrefix("\(path): Corrupt JPEG data") == true)
    }

    @Test func pngCRCErrorInImageData() throws {
        let directory = try TemporaryDirectory()
        var encoded = try PNGEncoder().encode(Self.image)
        let whole = try directory.write(encoded, to: "whole.png")
        let idat = try #require(PNGChunks.chunks(of: encoded).first { $0.type == "IDAT" })
        encoded[idat.offset + 8 + idat.length] ^= 0xFF  // first byte of its CRC
        let path = try directory.write(encoded, to: "crc.png")
        let error = try #require(decodeError(path))
        #expect(error.kind == .corrupt)
        #expect(error.message == "IDAT: CRC error")

        let log = WarningLog()
        #expect(try ImageDecoder.decode(path: path, options: log.lenientOptions) == ImageDecoder.decode(path: whole))
        #expect(log.lines == ["\(path): IDAT: CRC error"])
    }

    @Test func pngCRCErrorInAncillaryChunk() throws {
        let directory = try TemporaryDirectory()
        let encoded = try PNGEncoder().encode(Self.image)
        let whole = try directory.write(encoded, to: "whole.png")
        var text = PNGChunks.chunk("tEXt", Array("Comment\u{0}hello".utf8))
        text[text.count - 1] ^= 0x01
        let path = try directory.write(Array(encoded[..<33]) + text + Array(encoded[33...]), to: "text.png")
        #expect(decodeError(path)?.description == "\(path): tEXt: CRC error")

        let log = WarningLog()
        #expect(try ImageDecoder.decode(path: path, options: log.lenientOptions) == ImageDecoder.decode(path: whole))
        #expect(log.lines == ["\(path): tEXt: CRC error"])
    }

    @Test func errorsAreSticky() throws {
        let directory = try TemporaryDirectory()
        let encoded = try JPEGEncoder(quality: 90).encode(Self.image)
        let cut = try directory.write(Array(encoded.prefix(encoded.count / 2)), to: "cut.jpg")
        let reader = try ImageDecoder.open(path: cut)
        var strip = [UInt8](repeating: 0, count: 64 * 3 * 480)
        var messages: [String] = []
        for _ in 0..<2 {
            do {
                _ = try strip.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, rowCount: 480) }
            } catch {
                messages.append("\(error)")
            }
        }
        #expect(messages.count == 2)
        #expect(messages.first == messages.last)
        #expect(reader.rowsRead < 480)
        #expect(throws: CodecError.self) { try strip.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, rowCount: 0) } }
    }

    @Test func errorAfterTheLastRowIsSticky() throws {
        let directory = try TemporaryDirectory()
        let encoded = try PNGEncoder().encode(Self.image)
        let iend = try #require(PNGChunks.chunks(of: encoded).last)
        #expect(iend.type == "IEND")
        let path = try directory.write(Array(encoded[..<iend.offset]), to: "no-iend.png")  // every row intact, IEND missing
        let reader = try ImageDecoder.open(path: path)
        var strip = [UInt8](repeating: 0, count: 64 * 3 * 480)
        #expect(throws: CodecError.self) { try strip.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, rowCount: 480) } }
        #expect(reader.rowsRead == 480)
        let again = #expect(throws: CodecError.self) {
            try strip.withUnsafeMutableBufferPointer { try reader.readRows(into: $0.baseAddress!, rowCount: 16) }
        }
        #expect(again?.description == "\(path): unexpected end of file (at row 480 of 480)")
    }
}
