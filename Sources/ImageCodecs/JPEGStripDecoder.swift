import CJPEG

/// A libjpeg decompressor (via CJPEG) positioned after the header, delivering 8-bit gray or RGB rows.
final class JPEGStripDecoder: StripDecoder {
    private let reader: OpaquePointer
    private let file: InputFile
    private let relay: WarningRelay?

    private init(reader: OpaquePointer, file: InputFile, relay: WarningRelay?) {
        self.reader = reader
        self.file = file
        self.relay = relay
    }

    deinit { tiler_jpeg_reader_destroy(reader) }

    /// Reads the markers of `file` up to the first scan (no pixels) and checks them against `options.maxPixels`.
    static func open(file: InputFile, options: DecodeOptions) throws(CodecError) -> (JPEGStripDecoder, ImageHeader, ColourTransform?) {
        let (reader, relay) = try WarningRelay.reader("JPEG", file: file, options: options) {
            tiler_jpeg_reader_create(file.handle, $0, $1, $2)
        }
        let source = JPEGStripDecoder(reader: reader, file: file, relay: relay)
        var raw = tiler_jpeg_header()
        let status = tiler_jpeg_reader_read_header(reader, &raw)
        guard status == TILER_JPEG_OK else {
            if status == TILER_JPEG_ERR_TRUNCATED { throw InputFile.truncatedHeader(.jpeg, path: file.path, size: file.size) }
            throw CodecError(kind: CodecError.kind(forShimStatus: status), path: file.path, message: source.message)
        }
        var header = makeHeader(raw)
        if !options.pipelinedJPEG { _ = tiler_jpeg_reader_set_pipelined(reader, 0) }
        if options.jpegScale != 1 {
            var width: UInt32 = 0
            var height: UInt32 = 0
            guard tiler_jpeg_reader_set_scale(reader, UInt32(clamping: options.jpegScale), &width, &height) == TILER_JPEG_OK else {
                throw CodecError(kind: .invalidArgument, path: file.path, message: "a JPEG can be scaled by 1/1, 1/2, 1/4 or 1/8 only")
            }
            header.width = Int(width)
            header.height = Int(height)
        }
        try header.checkLimits(maxPixels: options.maxPixels, path: file.path)
        let transform = try source.colourSetup(&header, inverted: raw.saw_adobe != 0, options: options, path: file.path)
        return (source, header, transform)
    }

    /// Reads the ICC profile (APP2 markers) into `header` and builds the transform it needs. CMYK and YCCK rows go
    /// through the profile as CMYK; without a usable one they are converted with the uncalibrated formula, and the
    /// warning handler is told so.
    private func colourSetup(_ header: inout ImageHeader, inverted: Bool, options: DecodeOptions, path: String) throws(CodecError)
        -> ColourTransform?
    {
        var payloads: [[UInt8]] = []
        var data: UnsafePointer<UInt8>?
        var length = 0
        while tiler_jpeg_reader_marker(reader, 2, payloads.count, &data, &length) == 1, let data {
            payloads.append(Array(UnsafeBufferPointer(start: data, count: length)))
        }
        header.colourTag = JPEGICCAssembly.tag(payloads)
        let cmyk = header.colorType == "cmyk" || header.colorType == "ycck"
        let warn = { (line: String) -> Void in options.onWarning?("\(path): \(line)") }
        let space: ColourInput.Space = cmyk ? .cmyk : header.pixelFormat == .gray ? .gray : .rgb
        let input = ColourInput(space: space, invertedCMYK: cmyk && inverted)
        let transform = try ColourManagement.transform(
            for: header.colourTag, input: input, policy: options.colour, path: path, warn: warn)
        if let transform {
            if cmyk { _ = tiler_jpeg_reader_keep_cmyk(reader) }
            header.colourConversion = "\(header.colourTag.summary) → sRGB"
            return transform
        }
        if cmyk {
            ColourManagement.noteUncalibratedInk(header.colorType.uppercased(), header: &header, policy: options.colour, warn: warn)
        }
        return nil
    }

    private static func makeHeader(_ raw: tiler_jpeg_header) -> ImageHeader {
        let colorTypes: [Int32: String] = [
            TILER_JPEG_CS_GRAY: "gray", TILER_JPEG_CS_RGB: "rgb", TILER_JPEG_CS_YCBCR: "ycbcr", TILER_JPEG_CS_CMYK: "cmyk",
            TILER_JPEG_CS_YCCK: "ycck",
        ]
        let pixelFormat: PixelFormat = raw.out_channels == 1 ? .gray : .rgb
        let exif = raw.exif.map { [UInt8](UnsafeBufferPointer(start: $0, count: raw.exif_length)) }
        let sampling = withUnsafeBytes(of: raw.h_samp) { h in
            withUnsafeBytes(of: raw.v_samp) { v in
                chromaSubsampling(
                    h: Array(h.bindMemory(to: Int32.self)), v: Array(v.bindMemory(to: Int32.self)), components: Int(raw.components))
            }
        }
        return ImageHeader(
            format: .jpeg, width: Int(raw.width), height: Int(raw.height), pixelFormat: pixelFormat,
            channels: pixelFormat.channels, bitDepth: Int(raw.precision), colorType: colorTypes[raw.color_space] ?? "unknown",
            interlaced: false, progressive: raw.progressive != 0, chromaSubsampling: sampling,
            orientation: exif.flatMap(ExifOrientation.parse))
    }

    /// J:a:b notation from the sampling factors of component 0 against components 1 and 2, e.g. 2×2
    /// against 1×1 is "4:2:0"; nil for one component; "H×V,…" when no name fits.
    static func chromaSubsampling(h: [Int32], v: [Int32], components: Int) -> String? {
        guard components >= 3, h[1] == h[2], v[1] == v[2], h[1] > 0, v[1] > 0, h[0] % h[1] == 0, v[0] % v[1] == 0 else {
            guard components >= 3 else { return nil }
            return (0..<min(components, 4)).map { "\(h[$0])x\(v[$0])" }.joined(separator: ",")
        }
        switch (h[0] / h[1], v[0] / v[1]) {
        case (1, 1): return "4:4:4"
        case (2, 1): return "4:2:2"
        case (2, 2): return "4:2:0"
        case (1, 2): return "4:4:0"
        case (4, 1): return "4:1:1"
        case (4, 2): return "4:1:0"
        default: return (0..<min(components, 4)).map { "\(h[$0])x\(v[$0])" }.joined(separator: ",")
        }
    }

    func read(into buffer: UnsafeMutablePointer<UInt8>, stride: Int, count: UInt32, done: inout UInt32) -> Int32 {
        tiler_jpeg_reader_read_rows(reader, buffer, stride, count, &done)
    }

    var message: String { String(cString: tiler_jpeg_reader_message(reader)) }

    var errorRow: Int? {
        let row = tiler_jpeg_reader_error_row(reader)
        return row >= 0 ? Int(row) : nil
    }
}
