import CJPEG
import CPNG

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a whole PNG or JPEG file from rows delivered a strip at a time, in memory bounded by the width.
///
/// The file appears at its path only when ``finish()`` succeeds: rows go to a hidden temporary file beside
/// it, renamed into place at the end, and removed if the writer is dropped or fails first. Not Sendable:
/// use from one thread.
public final class ImageFileWriter {
    /// The file format and its encoder settings.
    public enum Format: Sendable, Equatable {
        /// JPEG at quality 1–100; gray or RGB rows only.
        case jpeg(quality: Int = 90, subsampling: ChromaSubsampling = .s420, progressive: Bool = false)
        /// PNG at zlib level 0–9, 8 bits per sample.
        case png(compressionLevel: Int = 6)
    }

    /// The destination path.
    public let path: String
    /// The image width, in pixels.
    public let width: Int
    /// The image height, in pixels.
    public let height: Int
    /// The layout of the rows passed to ``write(rows:count:)``.
    public let pixelFormat: PixelFormat
    /// Rows written so far.
    public private(set) var rowsWritten = 0

    private let temporaryPath: String
    private var jpeg: OpaquePointer?
    private var png: OpaquePointer?
    private var finished = false

    /// Creates the temporary file and starts the image. Throws `CodecError` for bad settings or when the
    /// file cannot be created.
    public init(path: String, width: Int, height: Int, pixelFormat: PixelFormat, format: Format) throws {
        guard width >= 1, height >= 1, width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw CodecError(kind: .invalidArgument, path: path, message: "cannot write a \(width) × \(height) image")
        }
        self.path = path
        self.width = width
        self.height = height
        self.pixelFormat = pixelFormat
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        temporaryPath = String(path[..<slash]) + "." + String(path[slash...]) + ".tmp-\(getpid())"
        var message = [CChar](repeating: 0, count: 512)
        switch format {
        case .jpeg(let quality, let subsampling, let progressive):
            guard (1...100).contains(quality), width <= 65_500, height <= 65_500 else {
                throw CodecError(kind: .invalidArgument, path: path, message: "JPEG needs quality 1–100 and sides up to 65500")
            }
            let sampling: Int32 =
                switch subsampling {
                case .s444: TILER_JPEG_SUBSAMPLING_444
                case .s422: TILER_JPEG_SUBSAMPLING_422
                case .s420: TILER_JPEG_SUBSAMPLING_420
                }
            jpeg = tiler_jpeg_file_writer_create(
                temporaryPath, UInt32(width), UInt32(height), Int32(pixelFormat.channels), Int32(quality), sampling,
                progressive ? 1 : 0, &message, message.count)
            guard jpeg != nil else { throw Self.error(path: path, message: message) }
        case .png(let level):
            guard (0...9).contains(level) else {
                throw CodecError(kind: .invalidArgument, path: path, message: "PNG compression level must be 0–9")
            }
            png = tiler_png_file_writer_create(
                temporaryPath, UInt32(width), UInt32(height), Int32(pixelFormat.channels), Int32(level), &message, message.count)
            guard png != nil else { throw Self.error(path: path, message: message) }
        }
    }

    deinit {
        if !finished { close() }
        if !finished { unlink(temporaryPath) }
    }

    /// Writes the next `count` rows, stored contiguously at `base` (stride `width × channels` bytes).
    public func write(rows base: UnsafePointer<UInt8>, count: Int) throws {
        guard !finished, count >= 0, rowsWritten + count <= height else {
            throw CodecError(kind: .invalidArgument, path: path, message: "more rows than the image's \(height)")
        }
        let stride = width * pixelFormat.channels
        let status: Int32
        if let jpeg {
            status = tiler_jpeg_file_writer_write_rows(jpeg, base, stride, UInt32(count))
            if status != TILER_JPEG_OK { throw failure(String(cString: tiler_jpeg_file_writer_message(jpeg))) }
        } else if let png {
            status = tiler_png_file_writer_write_rows(png, base, stride, UInt32(count))
            if status != TILER_PNG_OK { throw failure(String(cString: tiler_png_file_writer_message(png))) }
        }
        rowsWritten += count
    }

    /// Ends the image, closes the file and renames it into place. Every row must have been written.
    public func finish() throws {
        guard !finished else { return }
        guard rowsWritten == height else {
            throw CodecError(kind: .invalidArgument, path: path, message: "only \(rowsWritten) of \(height) rows were written")
        }
        if let jpeg, tiler_jpeg_file_writer_finish(jpeg) != TILER_JPEG_OK {
            throw failure(String(cString: tiler_jpeg_file_writer_message(jpeg)))
        }
        if let png, tiler_png_file_writer_finish(png) != TILER_PNG_OK {
            throw failure(String(cString: tiler_png_file_writer_message(png)))
        }
        guard close() == 0 else { throw failure("closing the file failed: \(String(cString: strerror(errno)))") }
        guard rename(temporaryPath, path) == 0 else { throw failure(String(cString: strerror(errno))) }
        finished = true
    }

    /// Closes the stream once; returns fclose's result.
    @discardableResult
    private func close() -> Int32 {
        var result: Int32 = 0
        if let jpeg { result = tiler_jpeg_file_writer_destroy(jpeg) }
        if let png { result = tiler_png_file_writer_destroy(png) }
        jpeg = nil
        png = nil
        return result
    }

    private func failure(_ message: String) -> CodecError {
        close()
        unlink(temporaryPath)
        return CodecError(kind: .io, path: path, message: message)
    }

    private static func error(path: String, message: [CChar]) -> CodecError {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return CodecError(kind: .io, path: path, message: text)
    }
}
