import TestSupport
import Testing

@testable import ImageCodecs

#if canImport(Glibc)
    import Glibc
#endif

/// Each way a path can fail before any pixel is decoded gives one specific line.
@Suite struct DecodeErrorTests {
    @Test func missingFile() throws {
        let directory = try TemporaryDirectory()
        let error = decodeError(directory.file("x.png"))
        #expect(error?.kind == .notFound)
        #expect(error?.description == directory.file("x.png") + ": no such file")
    }

    @Test func parentIsAFile() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write([1, 2, 3], to: "plain")
        #expect(decodeError(file + "/x.png")?.description == file + "/x.png: no such file (a parent is not a directory)")
    }

    @Test func directory() throws {
        let directory = try TemporaryDirectory()
        let error = decodeError(directory.path)
        #expect(error?.kind == .isDirectory)
        #expect(error?.description == directory.path + ": is a directory")
    }

    @Test func namedPipe() throws {
        let directory = try TemporaryDirectory()
        let pipe = directory.file("pipe.png")
        try #require(mkfifo(pipe, 0o600) == 0)
        // Checked by stat alone: this cannot wait for a writer even when the check is wrong.
        #expect(throws: CodecError(kind: .notAFile, path: pipe, message: "is a named pipe (FIFO), not a file (images are read from files)")) {
            try ImageDecoder.refuseSpecialFile(path: pipe)
        }
    }

    @Test func characterDevice() {
        let error = decodeError("/dev/null")
        #expect(error?.kind == .notAFile)
        #expect(error?.description == "/dev/null: is a character device, not a file (images are read from files)")
    }

    @Test func aPlainFileOrAMissingOnePassesTheSpecialFileCheck() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write([1, 2, 3], to: "plain")
        try ImageDecoder.refuseSpecialFile(path: file)
        try ImageDecoder.refuseSpecialFile(path: directory.file("missing"))
    }

    @Test func emptyFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write([], to: "x.png")
        #expect(decodeError(path)?.description == path + ": file is empty")
        #expect(decodeError(path)?.kind == .empty)
    }

    @Test func permissionDeniedWording() {
        // Tests run as root in CI, where chmod 000 does not stop a read, so the errno mapping is checked directly.
        #expect(CodecError.fromErrno(EACCES, path: "x.png").description == "x.png: permission denied")
        #expect(CodecError.fromErrno(EACCES, path: "x.png").kind == .permissionDenied)
        #expect(CodecError.fromErrno(ENOENT, path: "x.png").description == "x.png: no such file")
    }

    @Test(
        "A file cut inside its signature or header names the format and the size",
        arguments: [
            ([UInt8](PNGChunks.signature), "truncated PNG header (file ends after 8 bytes)"),
            ([0x89, 0x50, 0x4E], "truncated PNG header (file ends after 3 bytes)"),
            ([UInt8](PNGChunks.signature + PNGChunks.ihdr(width: 4, height: 4).prefix(10)), "truncated PNG header (file ends after 18 bytes)"),
            ([0xFF, 0xD8], "truncated JPEG header (file ends after 2 bytes)"),
            ([0xFF, 0xD8, 0xFF], "truncated JPEG header (file ends after 3 bytes)"),
            ([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A], "truncated JPEG header (file ends after 7 bytes)"),
        ])
    func truncatedHeader(bytes: [UInt8], message: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(bytes, to: "x.img")
        let error = decodeError(path)
        #expect(error?.kind == .truncated)
        #expect(error?.description == path + ": " + message)
        #expect(throws: CodecError.self) { try ImageDecoder.readHeader(path: path) }
    }

    @Test(
        "Other files say what they look like",
        arguments: [
            (Array("GIF89a\u{1}\u{0}".utf8), "unsupported format: a GIF image, not a PNG, JPEG, TIFF or WebP file"),
            ([0x42, 0x4D, 0x3A, 0x00, 0, 0, 0, 0], "unsupported format: a BMP image, not a PNG, JPEG, TIFF or WebP file"),
            (Array("8BPS\u{0}\u{1}\u{0}\u{0}".utf8), "unsupported format: a Photoshop document, not a PNG, JPEG, TIFF or WebP file"),
            (
                Array("hello, world\n".utf8),
                "unsupported format: not a PNG, JPEG, TIFF or WebP file (starts with 68 65 6c 6c 6f 2c 20 77 \"hello, w\")"
            ),
            ([0x00, 0xFF, 0x10], "unsupported format: not a PNG, JPEG, TIFF or WebP file (starts with 00 ff 10 \"...\")"),
        ])
    func unsupportedFormat(bytes: [UInt8], message: String) throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(bytes, to: "x.png")
        let error = decodeError(path)
        #expect(error?.kind == .unsupportedFormat)
        #expect(error?.description == path + ": " + message)
    }

    @Test func zeroWidthPNG() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write(PNGChunks.headerOnlyFile(width: 0, height: 10), to: "zero.png")
        let error = decodeError(path)
        #expect(error?.kind == .corrupt)
        #expect(error?.message.contains("Image width is zero in IHDR") == true, "\(String(describing: error))")
    }

    @Test func zeroHeightJPEG() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("zero.jpg")
        try JPEGFixture.all[0].write(to: path)
        var bytes = try directory.read("zero.jpg")
        let sof = try #require(bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = 0
        bytes[sof + 6] = 0
        try directory.write(bytes, to: "zero.jpg")
        #expect(decodeError(path)?.description == path + ": Empty JPEG image (DNL not supported)")
    }

    @Test func pixelLimitFromHeaderAlone() throws {
        let directory = try TemporaryDirectory()
        // 2^31−1 squared: rejected before any row buffer could be allocated (the IDAT is a stub).
        let huge = try directory.write(PNGChunks.headerOnlyFile(width: 0x7FFF_FFFF, height: 0x7FFF_FFFF), to: "huge.png")
        let error = decodeError(huge)
        #expect(error?.kind == .tooLarge)
        #expect(error?.description == huge + ": image is 2147483647 × 2147483647 = 4611686014132420609 pixels, over the limit of 17179869184")
        #expect(throws: CodecError.self) { try ImageDecoder.readHeader(path: huge) }

        let small = directory.file("small.jpg")
        try JPEGFixture.all[0].write(to: small)
        #expect(try ImageDecoder.readHeader(path: small, options: DecodeOptions(maxPixels: 2048)).pixelCount == 2048)
        let limited = decodeError(small, options: DecodeOptions(maxPixels: 2047))
        #expect(limited?.description == small + ": image is 64 × 32 = 2048 pixels, over the limit of 2047")
    }
}
