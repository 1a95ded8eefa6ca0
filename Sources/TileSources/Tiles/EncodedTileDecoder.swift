import Glibc
import HTTPCore
import ImageCodecs

/// Decodes a tile's encoded bytes, as the tile cache holds them, into pixels.
///
/// ImageCodecs decodes from paths only, so the bytes are written to a scratch file that was unlinked as soon as
/// it was created (in `/dev/shm` when there is one) and read back through `/proc/self/fd/N`: no name on disk, no
/// disk I/O. Where that is unavailable (no procfs), tiles are decoded from their own files instead.
///
/// Not Sendable: one per render thread (see ``RenderWorkspace``).
package final class EncodedTileDecoder {
    private let descriptor: Int32
    private let path: String?

    /// Creates the scratch file (or notes that there is none).
    package init() {
        descriptor = Self.makeScratchFile()
        var status = stat()
        let path = "/proc/self/fd/\(descriptor)"
        self.path = descriptor >= 0 && stat(path, &status) == 0 ? path : nil
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    private static func required(_ path: String?) throws -> String {
        guard let path else { throw RenderError(message: "no scratch file to decode a tile in (is /proc mounted?)") }
        return path
    }

    /// Decodes `file`'s body; `fallbackPath` is the tile's own file, read when there is no scratch file (a tile made
    /// from a stored pyramid has none: then such a machine cannot decode it, and says so).
    ///
    /// - Throws: `CodecError` for damaged tiles, or an I/O error writing the scratch file.
    package func decode(_ file: LoadedFile, fallbackPath: String?) throws -> PixelBuffer {
        guard let path else { return try ImageDecoder.decode(path: try Self.required(fallbackPath)) }
        let body = file.body
        let written = body.withContiguousStorageIfAvailable { bytes -> Bool in
            guard ftruncate(descriptor, 0) == 0 else { return false }
            var done = 0
            while done < bytes.count {
                let count = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, off_t(done))
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { return false }
                done += count
            }
            return true
        }
        guard written == true else { return try ImageDecoder.decode(path: try Self.required(fallbackPath)) }
        return try ImageDecoder.decode(path: path)
    }

    /// An anonymous scratch file: created with a unique name and unlinked at once. -1 if none can be made.
    private static func makeScratchFile() -> Int32 {
        let folder = FileSignature.isDirectory("/dev/shm") ? "/dev/shm" : (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp")
        var template = Array((folder + "/tiler-tile-XXXXXX").utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { return -1 }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        return descriptor
    }
}
