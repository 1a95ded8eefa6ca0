/// Opens PNG, JPEG, TIFF and WebP files, recognised by their magic bytes, for header inspection or streaming.
public enum ImageDecoder {
    /// Reads the header of the image at `path` without decoding pixels.
    ///
    /// Throws `CodecError` for a missing, unreadable, empty or non-image file, a damaged or truncated
    /// header, zero size, or more than `options.maxPixels` pixels. O(header bytes).
    public static func readHeader(path: String, options: DecodeOptions = .init()) throws -> ImageHeader {
        try open(path: path, options: options).header
    }

    /// Refuses a path that names a named pipe, a socket or a character device (``CodecError/Kind/notAFile``) without
    /// opening it, for a caller about to look at the file some other way first; ``open(path:options:)`` checks it too.
    ///
    /// - Complexity: one `stat`.
    public static func refuseSpecialFile(path: String) throws(CodecError) {
        try InputFile.refuseSpecialFile(path: path)
    }

    /// Opens the image at `path` for reading rows in strips.
    ///
    /// Reads and checks the header only (as `readHeader`); pixel decoding starts at the first
    /// `readRows`. The reader owns the file until it is released.
    public static func open(path: String, options: DecodeOptions = .init()) throws -> any ImageRowReader {
        try InputFile.refuseSpecialFile(path: path)
        if let slide = try openSlide(path: path) {
            guard options.page ?? 0 == 0 else {
                let message = "there is no page \(options.page ?? 0): a slide is read at its full resolution"
                throw CodecError(kind: .invalidArgument, path: path, message: message)
            }
            return try SlideRowReader(slide: slide, options: options)
        }
        let file = try InputFile.open(path: path)
        if let page = options.page, page != 0, file.format != .tiff {
            throw CodecError(
                kind: .invalidArgument, path: path, message: "there is no page \(page): a \(file.format.displayName) file has one page (0)")
        }
        switch file.format {
        case .webp:
            let (source, header) = try WebPStripDecoder.open(file: file, options: options)
            return StripReader(source: source, header: header, path: path)
        case .tiff:
            let (source, header, transform) = try TIFFStripDecoder.open(file: file, options: options)
            return StripReader(source: source, header: header, path: path, transform: transform)
        case .png:
            let (source, header, transform) = try PNGStripDecoder.open(file: file, options: options)
            return StripReader(source: source, header: header, path: path, transform: transform)
        case .jpeg:
            let (source, header, transform) = try JPEGStripDecoder.open(file: file, options: options)
            return StripReader(source: source, header: header, path: path, transform: transform)
        case .slide:
            throw CodecError(kind: .unsupportedFormat, path: path, message: "not an image file")
        }
    }

    /// The slide at `path` when OpenSlide reads it and Tiler's own decoders are not the better reader: every vendor
    /// format but generic tiled TIFF and Aperio SVS, whose TIFF pages the TIFF decoder reads (with their colour
    /// profiles). Nil for any other file.
    ///
    /// - Throws: `CodecError` `.corrupt` with OpenSlide's message when OpenSlide recognises the file but fails.
    static func openSlide(path: String) throws(CodecError) -> Slide? {
        guard let vendor = Slide.vendor(of: path), vendor != "generic-tiff", vendor != "aperio" else { return nil }
        do {
            return try Slide(path: path)
        } catch {
            throw CodecError(kind: .corrupt, path: path, message: error.reason)
        }
    }

    /// Decodes the whole image at `path` into memory: a convenience for tests and small files.
    ///
    /// Memory O(width × height); use `open` and strips for large images.
    public static func decode(path: String, options: DecodeOptions = .init()) throws -> PixelBuffer {
        let reader = try open(path: path, options: options)
        let header = reader.header
        let stride = header.width * header.channels
        let (total, overflow) = stride.multipliedReportingOverflow(by: header.height)
        guard !overflow else {
            throw CodecError(kind: .tooLarge, path: path, message: "image is too large to decode into memory")
        }
        let bytes = try [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            while reader.rowsRead < header.height {
                let rows = try reader.readRows(into: base + reader.rowsRead * stride, rowCount: header.height - reader.rowsRead)
                if rows == 0 { break }
                initialized = reader.rowsRead * stride
            }
        }
        return PixelBuffer(width: header.width, height: header.height, pixelFormat: header.pixelFormat, bytes: bytes)
    }
}
