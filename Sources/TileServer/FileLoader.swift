import Glibc
import NIOCore

/// Reads whole files into ``PreparedFile``s with plain POSIX calls, refusing any whose real path leaves a given
/// folder. Blocking: call it from a thread pool, never an event loop.
enum FileLoader {
    /// `realpath(3)` of `path`, or `nil` if it does not resolve.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` (a real path) is `root` or inside it.
    static func isInside(_ path: String, root: String) -> Bool {
        path == root || path.hasPrefix(root == "/" ? "/" : root + "/")
    }

    /// Reads the regular file at `path` whole, with its size-and-mtime ``PreparedFile/etag(size:seconds:nanoseconds:)``.
    ///
    /// - Parameters:
    ///   - root: A real path (see ``realPath(_:)``); the file's real path must be inside it, so a symlink that
    ///     points out of it is refused as ``FileLoadError/Kind/outsideRoot``.
    ///   - maxBytes: Files larger than this are refused.
    /// - Throws: ``FileLoadError``.
    static func load(_ path: String, inside root: String, maxBytes: Int) throws(FileLoadError) -> PreparedFile {
        guard let resolved = realPath(path) else {
            throw FileLoadError(kind: .notFound, message: "no such file")
        }
        guard isInside(resolved, root: root) else {
            throw FileLoadError(kind: .outsideRoot, message: "the file resolves outside the served folder")
        }
        let descriptor = open(resolved, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else {
            throw FileLoadError(kind: .notFound, message: "the file cannot be opened")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw FileLoadError(kind: .notFound, message: "not a regular file")
        }
        let size = Int(status.st_size)
        guard size <= maxBytes else {
            throw FileLoadError(kind: .unreadable, message: "the file is larger than \(maxBytes) bytes")
        }
        let etag = PreparedFile.etag(size: size, seconds: Int(status.st_mtim.tv_sec), nanoseconds: Int(status.st_mtim.tv_nsec))
        return try read(descriptor, size: size, etag: etag)
    }

    /// Reads `size` bytes from `descriptor` into a buffer laid out as ``PreparedFile`` expects.
    private static func read(_ descriptor: Int32, size: Int, etag: String) throws(FileLoadError) -> PreparedFile {
        let etagLine = "ETag: \(etag)\r\n"
        let lengthLine = "Content-Length: \(size)\r\n\r\n"
        var buffer = ByteBuffer()
        buffer.reserveCapacity(etagLine.utf8.count + lengthLine.utf8.count + size)
        buffer.writeString(etagLine)
        buffer.writeString(lengthLine)
        let bodyOffset = buffer.writerIndex
        var complete = true
        if size > 0 {
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: size) { destination in
                var done = 0
                while done < size {
                    let count = Glibc.read(descriptor, destination.baseAddress! + done, size - done)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    done += count
                }
                complete = done == size
                return done
            }
        }
        guard complete else {
            throw FileLoadError(kind: .unreadable, message: "the file changed while it was read")
        }
        return PreparedFile(preparedBuffer: buffer, etagLineLength: etagLine.utf8.count, bodyOffset: bodyOffset)
    }
}
