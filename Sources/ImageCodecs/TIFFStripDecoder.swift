import CTIFF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A libtiff reader (via CTIFF) positioned at the chosen page, delivering 8-bit rows a strip or a row of tiles
/// at a time.
final class TIFFStripDecoder: StripDecoder {
    let reader: OpaquePointer
    private let file: InputFile
    private let relay: WarningRelay?

    private init(reader: OpaquePointer, file: InputFile, relay: WarningRelay?) {
        self.reader = reader
        self.file = file
        self.relay = relay
    }

    deinit { tiler_tiff_reader_destroy(reader) }

    /// Opens page `options.page` of `file` (the first full-resolution page when nil), reads its directory (no
    /// pixels) and checks it against `options.maxPixels`.
    static func open(file: InputFile, options: DecodeOptions) throws(CodecError) -> (TIFFStripDecoder, ImageHeader, ColourTransform?) {
        if let page = options.page, page < 0 {
            throw CodecError(kind: .invalidArgument, path: file.path, message: "page must be 0 or more, got \(page)")
        }
        let (reader, relay) = try WarningRelay.reader("TIFF", file: file, options: options) {
            tiler_tiff_reader_create(fileno(file.handle), $0, $1, $2)
        }
        let source = TIFFStripDecoder(reader: reader, file: file, relay: relay)
        var raw = tiler_tiff_header()
        let status = tiler_tiff_reader_read_header(reader, Int32(options.page ?? -1), &raw)
        guard status == TILER_TIFF_OK else {
            let kind: CodecError.Kind = status == TILER_TIFF_ERR_UNSUPPORTED ? .unsupportedFormat : CodecError.kind(forShimStatus: status)
            throw CodecError(kind: kind, path: file.path, message: source.message)
        }
        var header = makeHeader(raw)
        try header.checkLimits(maxPixels: options.maxPixels, path: file.path)
        let transform = try source.colourSetup(&header, options: options, path: file.path)
        return (source, header, transform)
    }

    private static func makeHeader(_ raw: tiler_tiff_header) -> ImageHeader {
        let pixelFormat = PixelFormat(rawValue: Int(raw.out_channels)) ?? .rgb
        let paths: [Int32: TIFFLayout.ReadPath] = [
            TILER_TIFF_PATH_SCANLINES: .scanlines, TILER_TIFF_PATH_STRIPS: .strips, TILER_TIFF_PATH_TILES: .tiles,
            TILER_TIFF_PATH_RGBA: .rgba,
        ]
        let alpha: [Int32: String] = [TILER_TIFF_ALPHA_ASSOCIATED: "associated", TILER_TIFF_ALPHA_UNASSOCIATED: "unassociated"]
        let layout = TIFFLayout(
            tiled: raw.tiled != 0, tileWidth: raw.tiled != 0 ? Int(raw.tile_width) : nil,
            tileHeight: raw.tiled != 0 ? Int(raw.tile_height) : nil, rowsPerStrip: raw.tiled == 0 ? Int(raw.rows_per_strip) : nil,
            compression: Int(raw.compression), compressionName: raw.compression_name.map { String(cString: $0) } ?? "unknown",
            predictor: Int(raw.predictor), separatePlanes: raw.planar == 2, samplesPerPixel: Int(raw.samples_per_pixel),
            photometric: Int(raw.photometric), alpha: alpha[raw.alpha], bigTIFF: raw.big_tiff != 0, page: Int(raw.page),
            pageCount: Int(raw.pages), reducedResolution: raw.reduced != 0, subIFDCount: Int(raw.subifds),
            readPath: paths[raw.path] ?? .scanlines)
        let icc = raw.icc.map { [UInt8](UnsafeBufferPointer(start: $0, count: Int(raw.icc_length))) }
        var header = ImageHeader(
            format: .tiff, width: Int(raw.width), height: Int(raw.height), pixelFormat: pixelFormat, channels: pixelFormat.channels,
            bitDepth: Int(raw.bits_per_sample), colorType: colorType(raw), interlaced: false, progressive: false,
            chromaSubsampling: nil, orientation: raw.orientation > 0 ? Int(raw.orientation) : nil)
        header.iccProfile = icc
        header.tiff = layout
        return header
    }

    /// The colour type in words: `"gray"`, `"gray+alpha"`, `"rgb"`, `"rgba"`, `"palette"`, `"cmyk"`, `"cmyk+alpha"`,
    /// `"ycbcr"`, `"cielab"`, … from the photometric interpretation and the extra samples.
    private static func colorType(_ raw: tiler_tiff_header) -> String {
        let names: [Int32: String] = [
            0: "gray", 1: "gray", 2: "rgb", 3: "palette", 5: "cmyk", 6: "ycbcr", 8: "cielab", 9: "icclab", 10: "itulab",
            32844: "logl", 32845: "logluv",
        ]
        let base = names[Int32(raw.photometric)] ?? "photometric \(raw.photometric)"
        if raw.compression == 7 && raw.photometric == 6 { return "ycbcr" }
        switch (base, raw.alpha != TILER_TIFF_ALPHA_NONE) {
        case ("gray", true): return "gray+alpha"
        case ("rgb", true): return "rgba"
        case (_, true): return base + "+alpha"
        default: return raw.photometric == 0 ? "gray (min-is-white)" : base
        }
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: UInt32, done: inout UInt32) -> Int32 {
        tiler_tiff_reader_read_rows(reader, buffer, stride, count, &done)
    }

    func directRows(stride: Int) -> Int {
        Int(tiler_tiff_reader_direct_rows(reader, stride))
    }

    var message: String { String(cString: tiler_tiff_reader_message(reader)) }

    var errorRow: Int? {
        let row = tiler_tiff_reader_error_row(reader)
        return row >= 0 ? Int(row) : nil
    }
}
