/// Rows of a whole-slide image's full resolution through OpenSlide (``Slide``), top to bottom, as straight RGB over
/// the slide's background colour: what `tiler slice` reads a slide with, the pixels the server serves it in place
/// with.
///
/// Memory: one band of at most ``Slide/maxRegionPixels`` pixels at a time (7 bytes a pixel while it is read).
public final class SlideRowReader: ImageRowReader {
    public let header: ImageHeader
    public private(set) var rowsRead = 0
    private let slide: Slide
    private var failed: SlideError?

    /// Opens `slide` (already open) for reading its level 0, within `options.maxPixels`.
    ///
    /// - Throws: `CodecError` `.tooLarge` over the limit.
    public init(slide: Slide, options: DecodeOptions = .init()) throws(CodecError) {
        self.slide = slide
        let level = slide.levels[0]
        header = ImageHeader(
            format: .slide, width: level.width, height: level.height, pixelFormat: .rgb, channels: 3, bitDepth: 8, colorType: "rgb",
            interlaced: false, progressive: false, chromaSubsampling: nil, orientation: nil)
        try header.checkLimits(maxPixels: options.maxPixels, path: slide.path)
    }

    /// Rows per band: as many as fit ``Slide/maxRegionPixels``, at least one.
    private var bandRows: Int { max(1, min(1024, Slide.maxRegionPixels / header.width)) }

    public var preferredBatchRows: Int { bandRows }

    public func readRows(into buffer: UnsafeMutablePointer<UInt8>, rowCount: Int) throws -> Int {
        if let failed { throw Self.codecError(failed) }
        let stride = header.width * 3
        var done = 0
        while done < rowCount && rowsRead < header.height {
            let rows = min(rowCount - done, header.height - rowsRead, bandRows)
            let band: PixelBuffer
            do {
                band = try slide.rgb(level: 0, x: 0, y: rowsRead, width: header.width, height: rows)
            } catch {
                failed = error
                throw Self.codecError(error)
            }
            band.bytes.withUnsafeBufferPointer { (buffer + done * stride).update(from: $0.baseAddress!, count: rows * stride) }
            done += rows
            rowsRead += rows
        }
        return done
    }

    private static func codecError(_ error: SlideError) -> CodecError {
        CodecError(kind: error.kind == .invalidArgument ? .invalidArgument : .corrupt, path: error.path, message: error.reason)
    }
}
