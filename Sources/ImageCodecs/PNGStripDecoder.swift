import CPNG

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A libpng reader (via CPNG) positioned after the header, delivering 8-bit rows.
final class PNGStripDecoder: StripDecoder {
    private let reader: OpaquePointer
    private let file: InputFile
    private let relay: WarningRelay?

    private init(reader: OpaquePointer, file: InputFile, relay: WarningRelay?) {
        self.reader = reader
        self.file = file
        self.relay = relay
    }

    deinit { tiler_png_reader_destroy(reader) }

    /// Reads the header of `file` (no pixels) and checks it against `options.maxPixels`.
    static func open(file: InputFile, options: DecodeOptions) throws(CodecError) -> (PNGStripDecoder, ImageHeader, ColourTransform?) {
        // libpng reads on to the first IDAT before it reports the size; an absurd IHDR is refused before that.
        if let (width, height) = peekSize(file), width > 0, height > 0 {
            try ImageHeader.checkPixelCount(width: width, height: height, maxPixels: options.maxPixels, path: file.path)
        }
        let (reader, relay) = try WarningRelay.reader("PNG", file: file, options: options) {
            tiler_png_reader_create(file.handle, $0, $1, $2)
        }
        let source = PNGStripDecoder(reader: reader, file: file, relay: relay)
        var raw = tiler_png_header()
        let status = tiler_png_reader_read_header(reader, &raw)
        guard status == TILER_PNG_OK else {
            if status == TILER_PNG_ERR_TRUNCATED { throw InputFile.truncatedHeader(.png, path: file.path, size: file.size) }
            throw CodecError(kind: CodecError.kind(forShimStatus: status), path: file.path, message: source.message)
        }
        var header = makeHeader(raw)
        try header.checkLimits(maxPixels: options.maxPixels, path: file.path)
        let transform = try source.colourSetup(&header, options: options, path: file.path)
        return (source, header, transform)
    }

    /// Reads the colour chunks into `header` and builds the transform they need (16-bit rows are then delivered
    /// at full depth, so they are converted before being reduced to 8 bits).
    private func colourSetup(_ header: inout ImageHeader, options: DecodeOptions, path: String) throws(CodecError) -> ColourTransform? {
        header.colourTag = PNGColourChunks.tag(chunk: chunk, inflate: Self.inflate)
        guard header.colourTag.needsTransform else { return nil }
        let gray = header.pixelFormat == .gray || header.pixelFormat == .grayAlpha
        let input = ColourInput(
            space: gray ? .gray : .rgb, bytesPerSample: header.bitDepth == 16 ? 2 : 1, hasAlpha: header.pixelFormat.hasAlpha)
        let warn = { (line: String) -> Void in options.onWarning?("\(path): \(line)") }
        guard let transform = try ColourManagement.transform(for: header.colourTag, input: input, policy: options.colour, path: path, warn: warn)
        else { return nil }
        if input.bytesPerSample == 2 { _ = tiler_png_reader_keep_16(reader) }
        header.colourConversion = "\(header.colourTag.summary) → sRGB"
        return transform
    }

    private func chunk(_ name: String) -> [UInt8]? {
        var data: UnsafePointer<UInt8>?
        var length = 0
        guard tiler_png_reader_chunk(reader, name, &data, &length) == 1, let data else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }

    private static func inflate(_ data: [UInt8], limit: Int) -> [UInt8]? {
        var out: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard tiler_png_inflate(data, data.count, limit, &out, &length) == TILER_PNG_OK, let out else { return nil }
        defer { tiler_png_free(out) }
        return Array(UnsafeBufferPointer(start: out, count: length))
    }

    /// The size the IHDR chunk declares, read from the first 24 bytes; the stream is left at the start.
    private static func peekSize(_ file: InputFile) -> (Int, Int)? {
        var bytes = [UInt8](repeating: 0, count: 24)
        let count = fread(&bytes, 1, bytes.count, file.handle)
        rewind(file.handle)
        guard count == bytes.count, bytes[12...15] == [0x49, 0x48, 0x44, 0x52] else { return nil }
        let word = { (at: Int) in bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (word(16), word(20))
    }

    private static func makeHeader(_ raw: tiler_png_header) -> ImageHeader {
        let colorTypes: [Int32: String] = [
            TILER_PNG_COLOR_GRAY: "gray", TILER_PNG_COLOR_GRAY_ALPHA: "gray+alpha", TILER_PNG_COLOR_RGB: "rgb",
            TILER_PNG_COLOR_RGBA: "rgba", TILER_PNG_COLOR_PALETTE: "palette",
        ]
        let pixelFormat = PixelFormat(rawValue: Int(raw.out_channels)) ?? .rgba
        let exif = raw.exif.map { [UInt8](UnsafeBufferPointer(start: $0, count: raw.exif_length)) }
        return ImageHeader(
            format: .png, width: Int(raw.width), height: Int(raw.height), pixelFormat: pixelFormat,
            channels: pixelFormat.channels, bitDepth: Int(raw.bit_depth), colorType: colorTypes[raw.color_type] ?? "unknown",
            interlaced: raw.interlaced != 0, progressive: false, chromaSubsampling: nil,
            orientation: exif.flatMap(ExifOrientation.parse))
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: UInt32, done: inout UInt32) -> Int32 {
        tiler_png_reader_read_rows(reader, buffer, stride, count, &done)
    }

    var message: String { String(cString: tiler_png_reader_message(reader)) }

    var errorRow: Int? {
        let row = tiler_png_reader_error_row(reader)
        return row >= 0 ? Int(row) : nil
    }
}
