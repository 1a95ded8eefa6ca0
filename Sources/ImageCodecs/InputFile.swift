#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An image file opened for streaming: a stdio handle with a 1 MiB buffer, its format sniffed from
/// the magic bytes and the handle rewound to the start.
///
/// Opening turns every way a path can be unusable into a specific one-line error: no such file,
/// permission denied, is a directory, file is empty, truncated header, unsupported format.
final class InputFile {
    /// Large reads keep inflate and Huffman decoding from waiting on 4 KiB `read(2)` calls.
    static let bufferSize = 1 << 20

    /// The path as the caller gave it (used in messages).
    let path: String
    /// The open stream, positioned at byte 0.
    let handle: UnsafeMutablePointer<FILE>
    /// The sniffed format.
    let format: ImageFormat
    /// The file size in bytes, for regular files.
    let size: Int?
    private let buffer: UnsafeMutableRawPointer

    private init(path: String, handle: UnsafeMutablePointer<FILE>, format: ImageFormat, size: Int?, buffer: UnsafeMutableRawPointer) {
        self.path = path
        self.handle = handle
        self.format = format
        self.size = size
        self.buffer = buffer
    }

    deinit {
        fclose(handle)
        buffer.deallocate()
    }

    /// Opens `path` and recognises its format. O(1) reads.
    static func open(path: String) throws(CodecError) -> InputFile {
        // Non-blocking, so that a path swapped for a named pipe after ``refuseSpecialFile(path:)`` looked at it is
        // refused below instead of waiting for a writer; regular files ignore the flag.
        let descriptor = openReadOnly(path)
        guard descriptor >= 0 else { throw CodecError.fromErrno(errno, path: path) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let code = errno
            close(descriptor)
            throw CodecError.fromErrno(code, path: path)
        }
        let type = info.st_mode & S_IFMT
        guard type != S_IFDIR else {
            close(descriptor)
            throw CodecError(kind: .isDirectory, path: path, message: "is a directory")
        }
        if let refusal = specialFileError(type: type, path: path) {
            close(descriptor)
            throw refusal
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        guard let handle = fdopen(descriptor, "rb") else {
            let code = errno
            close(descriptor)
            throw CodecError.fromErrno(code, path: path)
        }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 64)
        setvbuf(handle, buffer.assumingMemoryBound(to: CChar.self), _IOFBF, bufferSize)
        let size = type == S_IFREG ? Int(info.st_size) : nil
        do {
            let format = try sniff(handle, path: path, size: size)
            return InputFile(path: path, handle: handle, format: format, size: size, buffer: buffer)
        } catch {
            fclose(handle)
            buffer.deallocate()
            throw error
        }
    }

    /// Throws ``CodecError/Kind/notAFile`` when `path` names a named pipe, a socket or a character device, without
    /// opening it (opening a pipe waits for a writer, and OpenSlide's format detection opens the path before any
    /// decoder does). A missing path passes: opening it says so.
    ///
    /// - Complexity: one `stat`.
    static func refuseSpecialFile(path: String) throws(CodecError) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        if let refusal = specialFileError(type: info.st_mode & S_IFMT, path: path) { throw refusal }
    }

    /// The refusal for a file of type `type` (`st_mode & S_IFMT`) that is not a file a decoder can read, or nil.
    private static func specialFileError(type: mode_t, path: String) -> CodecError? {
        let what: String
        switch type {
        case S_IFIFO: what = "a named pipe (FIFO)"
        case S_IFSOCK: what = "a socket"
        case S_IFCHR: what = "a character device"
        default: return nil
        }
        return CodecError(kind: .notAFile, path: path, message: "is \(what), not a file (images are read from files)")
    }

    /// Reads the first bytes, names the format, and rewinds.
    private static func sniff(_ handle: UnsafeMutablePointer<FILE>, path: String, size: Int?) throws(CodecError) -> ImageFormat {
        var prefix = [UInt8](repeating: 0, count: 12)
        let count = fread(&prefix, 1, prefix.count, handle)
        if count < prefix.count, ferror(handle) != 0 {
            throw CodecError(kind: .io, path: path, message: "read error: \(String(cString: strerror(errno)))")
        }
        prefix.removeSubrange(count...)
        guard !prefix.isEmpty else { throw CodecError(kind: .empty, path: path, message: "file is empty") }
        guard let format = ImageFormat.sniff(prefix) else {
            if let partial = ImageFormat.partialMatch(prefix) {
                throw truncatedHeader(partial, path: path, size: size ?? prefix.count)
            }
            throw CodecError(kind: .unsupportedFormat, path: path, message: "unsupported format: " + ImageFormat.describeUnsupported(prefix))
        }
        guard fseek(handle, 0, SEEK_SET) == 0 else {
            throw CodecError(kind: .io, path: path, message: "cannot rewind the file (\(String(cString: strerror(errno))))")
        }
        return format
    }

    /// The error for a file that ends inside its header.
    static func truncatedHeader(_ format: ImageFormat, path: String, size: Int?) -> CodecError {
        let detail = size.map { " (file ends after \($0) byte\($0 == 1 ? "" : "s"))" } ?? ""
        return CodecError(kind: .truncated, path: path, message: "truncated \(format.displayName) header\(detail)")
    }
}

/// `open(2)` for reading; a free function because `InputFile.open` shadows the name inside the type.
private func openReadOnly(_ path: String) -> Int32 {
    open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
}
