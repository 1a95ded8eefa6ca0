#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CodecError {
    /// Maps a C shim status (the same numbering in CPNG and CJPEG: 1 corrupt, 2 truncated, 3 out of
    /// memory, 4 I/O, 5 argument) to a kind.
    static func kind(forShimStatus status: Int32) -> Kind {
        switch status {
        case 2: return .truncated
        case 3: return .outOfMemory
        case 4: return .io
        case 5: return .invalidArgument
        default: return .corrupt
        }
    }

    /// An error from `open(2)` / `fstat(2)` on `path`, in words a user can act on.
    static func fromErrno(_ code: Int32, path: String) -> CodecError {
        switch code {
        case ENOENT: return CodecError(kind: .notFound, path: path, message: "no such file")
        case ENOTDIR: return CodecError(kind: .notFound, path: path, message: "no such file (a parent is not a directory)")
        case EACCES, EPERM: return CodecError(kind: .permissionDenied, path: path, message: "permission denied")
        case EISDIR: return CodecError(kind: .isDirectory, path: path, message: "is a directory")
        default: return CodecError(kind: .io, path: path, message: String(cString: strerror(code)))
        }
    }
}

extension CodecError {
    /// The file a shim's encoder makes, copied out of the encoder's buffer: `encode` calls it, which sets the file's
    /// bytes and their count and returns a status (0 is success, any other what ``kind(forShimStatus:)`` maps). A
    /// failure throws that kind, saying `"<format> encoding failed: "` and the encoder's `message`.
    static func encoded(
        _ format: String, message: @autoclosure () -> String, _ encode: (inout UnsafePointer<UInt8>?, inout Int) -> Int32
    ) throws(CodecError) -> [UInt8] {
        var output: UnsafePointer<UInt8>?
        var length = 0
        let status = encode(&output, &length)
        guard status == 0, let output else {
            throw CodecError(kind: kind(forShimStatus: status), message: "\(format) encoding failed: \(message())")
        }
        return [UInt8](UnsafeBufferPointer(start: output, count: length))
    }
}
