import Archive
import Glibc

/// An SZI open for reading, as the shared ``StoredFileCache`` holds it: the descriptor is closed when the last
/// reference goes (an eviction while a thread reads from it waits for that read).
package final class ArchiveFile: Sendable {
    /// The open descriptor (read-only, close-on-exec).
    package let descriptor: Int32

    /// Opens the regular file at `path`.
    ///
    /// - Throws: ``ArchiveError`` when it cannot be opened or is not a regular file.
    package init(path: String) throws(ArchiveError) {
        // O_NONBLOCK: a FIFO must not hang the open; it changes nothing for regular files.
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { throw ArchiveError("\(path): cannot open", errno: errno) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw ArchiveError("\(path): not a regular file")
        }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }
}
