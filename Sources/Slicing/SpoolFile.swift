import Foundation

/// A temporary file for rows that cannot stream, unlinked the moment it is created: it has no name to clean up, so
/// it vanishes when closed, whether the slice succeeds, fails, is cancelled or the process is killed.
final class SpoolFile {
    /// Why the spool file could not be used: one line with the `errno` text.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private let descriptor: Int32

    /// Creates and unlinks `folder/.orient-XXXXXX`.
    init(folder: String) throws {
        var template = Array("\(folder)/.orient-XXXXXX".utf8CString)
        let descriptor = mkstemp(&template)
        guard descriptor >= 0 else {
            throw Failure("cannot create a temporary file in \(folder) to turn the image: \(String(cString: strerror(errno)))")
        }
        unlink(template)
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Writes `count` bytes at `offset`, all of them or an error (ENOSPC names the cause).
    func write(_ bytes: UnsafeRawPointer, count: Int, at offset: Int) throws {
        var done = 0
        while done < count {
            let n = pwrite(descriptor, bytes + done, count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure("cannot write the temporary file used to turn the image: \(String(cString: strerror(errno)))") }
            done += n
        }
    }

    /// Reads exactly `count` bytes at `offset`.
    func read(into bytes: UnsafeMutableRawPointer, count: Int, at offset: Int) throws {
        var done = 0
        while done < count {
            let n = pread(descriptor, bytes + done, count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure("cannot read back the temporary file used to turn the image") }
            done += n
        }
    }
}
