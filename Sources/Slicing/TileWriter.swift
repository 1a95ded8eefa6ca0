import Foundation

/// Writes tile files into `NAME_files/<level>/<column>_<row>.<ext>` with one `openat`/`write`/`close` each.
///
/// Each level folder is opened once, so a tile's open resolves one short name. Every return value is checked:
/// short writes are continued, `EINTR` retried, and errors such as `ENOSPC` (from `write` or `close`) thrown.
/// Immutable after creation, so one writer is shared by all worker threads.
struct TileWriter: Sendable {
    /// The `NAME_files` folder being filled.
    let filesPath: String
    /// The tile extension without a dot.
    let fileExtension: String
    private let levelFolders: [Int32]

    /// Creates `filesPath` and its level folders `0 ... levels − 1`, and opens them.
    init(filesPath: String, levels: Int, fileExtension: String) throws(SliceError) {
        self.filesPath = filesPath
        self.fileExtension = fileExtension
        var folders: [Int32] = []
        do throws(SliceError) {
            try Self.makeFolder(filesPath)
            for level in 0..<levels {
                let path = "\(filesPath)/\(level)"
                try Self.makeFolder(path)
                let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                guard fd >= 0 else { throw SliceError.system(.write, "cannot open folder \(path)", errno: errno) }
                folders.append(fd)
            }
        } catch {
            for fd in folders { close(fd) }
            throw error
        }
        levelFolders = folders
    }

    /// Closes the level folders. Call once, after the last ``writeTile(_:level:column:row:)``.
    func closeFolders() {
        for fd in levelFolders { close(fd) }
    }

    /// Writes one tile file; it must not exist yet.
    func writeTile(_ bytes: [UInt8], level: Int, column: Int, row: Int) throws(SliceError) {
        let name = "\(column)_\(row).\(fileExtension)"
        if let code = Self.writeFile(in: levelFolders[level], name: name, bytes: bytes) {
            throw SliceError.system(.write, "cannot write tile \(filesPath)/\(level)/\(name)", errno: code)
        }
    }

    /// Creates `path` with one `openat`/`write`/`close`, failing if it exists. Returns `errno` on failure.
    static func writeFile(in folder: Int32 = AT_FDCWD, name: String, bytes: [UInt8]) -> Int32? {
        let fd = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return errno }
        let writeError = bytes.withUnsafeBytes { writeAll(fd, $0) }
        let closed = close(fd)
        let closeError = closed == 0 ? nil : errno
        return writeError ?? closeError
    }

    /// Writes all of `bytes` to `fd`, continuing short writes and retrying `EINTR`. Returns `errno` on failure
    /// (`EIO` if the kernel accepts nothing without saying why).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            offset += written
        }
        return nil
    }

    private static func makeFolder(_ path: String) throws(SliceError) {
        guard mkdir(path, 0o755) == 0 else { throw SliceError.system(.write, "cannot create folder \(path)", errno: errno) }
    }
}
